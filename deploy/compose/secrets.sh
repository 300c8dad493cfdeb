#!/bin/sh
# The stack's four secrets for `docker compose up` with no setup (docker-compose.yml):
# AUTH_JWT_SECRET, INTERNAL_API_KEY, MYSQL_ROOT_PASSWORD, MYSQL_PASSWORD.
#
#   ticketing-secrets init        (the one-shot `init` service, before anything else starts)
#       For each secret: the value .env gives (passed in the environment) is written to the
#       secrets volume; with none, a file already there is kept; with neither, 32 random bytes
#       in hex are generated. So the first start generates them, later starts keep them, and
#       .env overrides each one.
#   ticketing-secrets COMMAND...  (the image's entrypoint, and mysql's; before a health check)
#       Each secret the service declares in its environment (`NAME: ${NAME:-}`) and left empty
#       is filled from the volume, and `${NAME}` of any secret in AUTH_DATABASE_URL or
#       TICKET_DATABASE_URL is replaced by its value; then COMMAND runs in this process (exec).
#       Without the volume (plain `docker run`, Kubernetes) it changes nothing.
#
# TICKETING_SECRETS_DIR: where the volume is mounted (default /run/ticketing-secrets).
# Secrets are never printed.
set -eu

dir=${TICKETING_SECRETS_DIR:-/run/ticketing-secrets}
names="AUTH_JWT_SECRET INTERNAL_API_KEY MYSQL_ROOT_PASSWORD MYSQL_PASSWORD"
templated="AUTH_DATABASE_URL TICKET_DATABASE_URL"
# The user the image's processes run as (node): they read the files, nobody else does.
owner=${TICKETING_SECRETS_OWNER:-1000:1000}

random_hex() { od -An -vtx1 -N32 /dev/urandom | tr -d ' \n'; }

if [ "${1:-}" = init ]; then
  umask 077
  mkdir -p "$dir"
  for name in $names; do
    eval "given=\${$name:-}"
    file="$dir/$name"
    if [ -n "$given" ]; then
      printf '%s' "$given" >"$file.new"
      mv -f "$file.new" "$file"
      echo "ticketing-secrets: $name from .env"
    elif [ -s "$file" ]; then
      echo "ticketing-secrets: $name kept"
    else
      random_hex >"$file.new"
      [ "$(wc -c <"$file.new")" -eq 64 ] || { echo "ticketing-secrets: could not generate $name" >&2; exit 1; }
      mv -f "$file.new" "$file"
      echo "ticketing-secrets: $name generated"
    fi
  done
  if [ "$(id -u)" = 0 ]; then chown "$owner" "$dir" "$dir"/*; fi
  chmod 0700 "$dir"
  chmod 0400 "$dir"/*
  exit 0
fi

[ $# -gt 0 ] || { echo "usage: ticketing-secrets init | ticketing-secrets COMMAND [ARG...]" >&2; exit 2; }

if [ -d "$dir" ]; then
  for name in $names; do
    file="$dir/$name"
    eval "declared=\${$name+yes} given=\${$name:-}"
    value=$given
    if [ -z "$value" ] && [ -r "$file" ]; then value=$(cat "$file"); fi
    if [ "$declared" = yes ] && [ -z "$given" ] && [ -n "$value" ]; then export "$name=$value"; fi
    [ -n "$value" ] || continue
    for target in $templated; do
      eval "current=\${$target:-}"
      case "$current" in
        *"\${$name}"*)
          export "$target=${current%%"\${$name}"*}$value${current#*"\${$name}"}"
          ;;
      esac
    done
  done
fi
exec "$@"
