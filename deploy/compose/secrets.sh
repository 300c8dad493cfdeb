#!/bin/sh
# The stack's secrets for `docker compose up` with no setup (docker-compose.yml):
# AUTH_SIGNING_KEY, AUTH_RATE_LIMIT_SECRET, INTERNAL_API_KEY, MYSQL_ROOT_PASSWORD,
# AUTH_MYSQL_PASSWORD, TICKET_MYSQL_PASSWORD, WEBHOOKS_MYSQL_PASSWORD.
#
#   ticketing-secrets init [SHARE=NAME,NAME...]...
#       (the one-shot `init` service, before anything else starts)
#       For each secret: the value .env gives (passed in the environment) is written to the
#       secrets volume; with none, a file already there is kept; with neither, one is generated
#       (32 random bytes in hex; for AUTH_SIGNING_KEY an EC P-256 private key, one line of
#       base64 PKCS#8 DER). So the first start generates them, later starts keep them, and
#       .env overrides each one. A volume from before signing keys keeps its AUTH_JWT_SECRET as
#       AUTH_RATE_LIMIT_SECRET (the rate limiter's counters carry over).
#       Then each SHARE (a volume of one service, mounted at $TICKETING_SECRETS_SHARES_DIR/SHARE)
#       gets exactly the NAMEs listed for it, and nothing else: no service mounts the volume
#       that holds them all.
#   ticketing-secrets COMMAND...  (the image's entrypoint, and mysql's; before a health check)
#       Each secret the service declares in its environment (`NAME: ${NAME:-}`) and left empty
#       is filled from the volume, and `${NAME}` of any secret in AUTH_DATABASE_URL,
#       TICKET_DATABASE_URL, WEBHOOK_DATABASE_URL or DATABASE_ADMIN_URL is replaced by its value; then COMMAND runs in this process (exec).
#       Without the volume (plain `docker run`, Kubernetes) it changes nothing.
#
# TICKETING_SECRETS_DIR: where the volume is mounted (default /run/ticketing-secrets).
# Secrets are never printed.
set -eu

dir=${TICKETING_SECRETS_DIR:-/run/ticketing-secrets}
names="AUTH_SIGNING_KEY AUTH_RATE_LIMIT_SECRET INTERNAL_API_KEY MYSQL_ROOT_PASSWORD AUTH_MYSQL_PASSWORD TICKET_MYSQL_PASSWORD WEBHOOKS_MYSQL_PASSWORD"
templated="AUTH_DATABASE_URL TICKET_DATABASE_URL WEBHOOK_DATABASE_URL DATABASE_ADMIN_URL"
shares=${TICKETING_SECRETS_SHARES_DIR:-/run/ticketing-shares}
# The user the image's processes run as (node): they read the files, nobody else does.
owner=${TICKETING_SECRETS_OWNER:-1000:1000}

random_hex() { od -An -vtx1 -N32 /dev/urandom | tr -d ' \n'; }
# An EC P-256 private key (ES256), as lib/tokens/keys.ts generatePrivateKey makes it (node is in the image).
signing_key() {
  node -e 'const { generateKeyPairSync } = require("node:crypto");
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
    process.stdout.write(privateKey.export({ type: "pkcs8", format: "der" }).toString("base64"));'
}
generate() {
  case "$1" in
    AUTH_SIGNING_KEY) signing_key ;;
    *) random_hex ;;
  esac
}

if [ "${1:-}" = init ]; then
  shift
  umask 077
  mkdir -p "$dir"
  if [ ! -s "$dir/AUTH_RATE_LIMIT_SECRET" ] && [ -s "$dir/AUTH_JWT_SECRET" ] && [ -z "${AUTH_RATE_LIMIT_SECRET:-}" ]; then
    cp "$dir/AUTH_JWT_SECRET" "$dir/AUTH_RATE_LIMIT_SECRET"
    echo "ticketing-secrets: AUTH_RATE_LIMIT_SECRET from the former AUTH_JWT_SECRET"
  fi
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
      generate "$name" >"$file.new"
      [ "$(wc -c <"$file.new")" -ge 64 ] || { echo "ticketing-secrets: could not generate $name" >&2; exit 1; }
      mv -f "$file.new" "$file"
      echo "ticketing-secrets: $name generated"
    fi
  done
  if [ "$(id -u)" = 0 ]; then chown "$owner" "$dir" "$dir"/*; fi
  chmod 0700 "$dir"
  chmod 0400 "$dir"/*
  for share in "$@"; do
    target="$shares/${share%%=*}"
    mkdir -p "$target"
    find "$target" -mindepth 1 -delete
    for name in $(echo "${share#*=}" | tr ',' ' '); do
      cp "$dir/$name" "$target/$name"
    done
    if [ "$(id -u)" = 0 ]; then chown -R "$owner" "$target"; fi
    chmod 0700 "$target"
    find "$target" -type f -exec chmod 0400 {} +
    echo "ticketing-secrets: ${share%%=*} gets ${share#*=}"
  done
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
