# One image for every process of the stack; the command chooses which (docker-compose.yml):
#   node dist/gateway/main.js          the HTTP gateway (default)
#   node dist/services/auth/main.js    the auth service (gRPC auth.v1)
#   node dist/services/ticket/main.js  the ticket service (gRPC ticketing.v1)
#   node dist/services/migrate.js      run the migrations, then exit
#   node dist/services/cli/main.js     the admin CLI (see docs/operations.md)
# Node.js 24 (LTS), held at 24.18: better-sqlite3 12 built for Node 24.19 or later aborts the process
# when the garbage collector frees a statement outside JavaScript ("Assertion failed: (env) !=
# nullptr" in RemoveEnvironmentCleanupHook; WiseLibs/better-sqlite3#1515). better-sqlite3 13 does
# not, but needs Node 22+, and the tests still run on Node 20 (docs/testing.md, "Running the tests"). node:24.18 and
# node:24.18-slim are the same Debian release, so the native module built in the first stage runs in the last one.

# 1. Every dependency, installed (and better-sqlite3 compiled) once for the stages below.
#    `npm ls` fails the build when npm exits 0 without having installed everything (an npm that
#    cannot reach its registry may print "Exit handler never called!" and still exit 0).
FROM node:24.18 AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund && npm ls >/dev/null

# 2. Compile TypeScript to dist/.
FROM deps AS build
COPY tsconfig.json ./
COPY lib ./lib
COPY services ./services
COPY gateway ./gateway
COPY proto ./proto
RUN npm run build

# 3. Production dependencies only: the dev dependencies removed, nothing installed or compiled again.
FROM deps AS prod-deps
RUN npm prune --omit=dev --no-audit --no-fund && npm ls --omit=dev >/dev/null && npm cache clean --force

# 4. Runtime: slim, no compiler, no dev dependencies, not root.
FROM node:24.18-slim AS runtime
# OCI image annotations (https://github.com/opencontainers/image-spec/blob/main/annotations.md).
# VERSION follows package.json (test/ops/compose.test.ts); a release build passes the commit and the
# time: docker build --build-arg REVISION=$(git rev-parse HEAD) --build-arg CREATED=$(date -u +%FT%TZ)
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG CREATED=unknown
LABEL org.opencontainers.image.title="ticketing" \
      org.opencontainers.image.description="Self-hostable ticketing API: an HTTP gateway, gRPC auth and ticket services, a webhook worker (the command chooses which)" \
      org.opencontainers.image.version="$VERSION" \
      org.opencontainers.image.revision="$REVISION" \
      org.opencontainers.image.created="$CREATED" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.base.name="node:24.18-slim"
ENV NODE_ENV=production
WORKDIR /app
# Fills in the secrets docker compose generated (deploy/compose/secrets.sh); without them it only runs the command.
COPY deploy/compose/secrets.sh /usr/local/bin/ticketing-secrets
COPY --from=prod-deps /app/node_modules ./node_modules
COPY package.json ./
COPY --from=build /app/dist ./dist
# DATA_DIR: only used without MySQL (SQLite files) or without AUTH_SIGNING_KEY outside production.
RUN chmod 0755 /usr/local/bin/ticketing-secrets && mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080 50051 50052 9464
STOPSIGNAL SIGTERM
ENTRYPOINT ["ticketing-secrets"]
CMD ["node", "dist/gateway/main.js"]
