# syntax=docker/dockerfile:1
# One image for every process of the stack; the command chooses which (docker-compose.yml):
#   node dist/gateway/main.js          the HTTP gateway (default)
#   node dist/services/auth/main.js    the auth service (gRPC auth.v1)
#   node dist/services/ticket/main.js  the ticket service (gRPC ticketing.v1)
#   node dist/services/migrate.js      run the migrations, then exit
#   node dist/services/cli/main.js     the admin CLI (see docs/operations.md)
# node:20 and node:20-slim are the same Debian release, so native modules built in the
# first stages (better-sqlite3) run in the last one.

# 1. Compile TypeScript to dist/.
FROM node:20 AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY lib ./lib
COPY services ./services
COPY gateway ./gateway
COPY proto ./proto
RUN npm run build

# 2. Production dependencies only (a full image: node-gyp can fall back to compiling here).
FROM node:20 AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# 3. Runtime: slim, no compiler, no dev dependencies, not root.
FROM node:20-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY package.json ./
COPY --from=build /app/dist ./dist
# DATA_DIR: only used without MySQL (SQLite files) or without AUTH_JWT_SECRET outside production.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080 50051 50052 9464
STOPSIGNAL SIGTERM
CMD ["node", "dist/gateway/main.js"]
