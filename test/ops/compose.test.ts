import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../lib/config.js';
import {
  commandOf,
  configKeys,
  exampleVariables,
  interpolate,
  portsOf,
  readCompose,
  readEnvExample,
  requiredVariables,
  ROOT,
  serviceEnvironment,
  serviceRunning,
  type ComposeService,
} from './compose-file.js';

/**
 * There is no Docker engine here: these checks read docker-compose.yml, .env.example, the
 * Dockerfile and the MySQL init script, and hold them against lib/config.ts and each other.
 * The same topology runs as processes in topology.test.ts.
 */
const compose = readCompose();
const vars = exampleVariables();
const SHUTDOWN_GRACE_SECONDS = 10;

const ENTRYPOINTS = {
  auth: 'dist/services/auth/main.js',
  ticket: 'dist/services/ticket/main.js',
  gateway: 'dist/gateway/main.js',
  migrate: 'dist/services/migrate.js',
};
const [authName, auth] = serviceRunning(compose, ENTRYPOINTS.auth);
const [ticketName, ticket] = serviceRunning(compose, ENTRYPOINTS.ticket);
const [gatewayName, gateway] = serviceRunning(compose, ENTRYPOINTS.gateway);
const [migrateName, migrate] = serviceRunning(compose, ENTRYPOINTS.migrate);
const nodeServices: Array<[string, ComposeService]> = [
  [authName, auth],
  [ticketName, ticket],
  [gatewayName, gateway],
  [migrateName, migrate],
];
const mysqlEntry = Object.entries(compose.services).find(([, s]) => s.image?.startsWith('mysql:'));
const redisEntry = Object.entries(compose.services).find(([, s]) => s.image?.startsWith('redis:'));

function configOf(service: ComposeService): Config {
  return loadConfig(serviceEnvironment(service, vars));
}

/** "host:port" -> [host, port]. */
function hostPort(address: string): [string, number] {
  const [host, port] = address.split(':');
  return [host!, Number(port)];
}

function dependsOn(service: ComposeService): Record<string, string | undefined> {
  const raw = service.depends_on ?? {};
  if (Array.isArray(raw)) return Object.fromEntries(raw.map((name) => [name, undefined]));
  return Object.fromEntries(Object.entries(raw).map(([name, spec]) => [name, spec?.condition]));
}

/** Services that run once and exit: nothing waits for them to be healthy, only to have completed. */
const oneShot = (service: ComposeService) => service.restart === 'no';

describe('docker-compose.yml', () => {
  it('has mysql:8.4, redis:7, the migrations and the three processes of the one image', () => {
    expect(mysqlEntry?.[1].image).toBe('mysql:8.4');
    expect(redisEntry?.[1].image).toBe('redis:7');
    const images = new Set(nodeServices.map(([, s]) => s.image));
    expect(images.size).toBe(1);
    for (const [name, service] of nodeServices) {
      expect(service.build, `${name} builds the Dockerfile`).toBeDefined();
      expect(commandOf(service)[0], `${name} runs node`).toBe('node');
    }
    expect(oneShot(migrate)).toBe(true);
  });

  it('every entrypoint and health check script it runs exists as a TypeScript source', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      const scripts = [...commandOf(service), ...(Array.isArray(service.healthcheck?.test) ? service.healthcheck.test : [])].filter((part) =>
        part.startsWith('dist/'),
      );
      for (const script of scripts) {
        const source = path.join(ROOT, script.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
        expect(existsSync(source), `${name}: ${script} is built from ${source}`).toBe(true);
      }
    }
  });

  it("each node service's environment passes lib/config.ts, with NODE_ENV=production and a required AUTH_JWT_SECRET", () => {
    const raw = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
    for (const [name, service] of nodeServices) {
      const config = configOf(service);
      expect(config.NODE_ENV, name).toBe('production');
      expect(config.AUTH_JWT_SECRET, name).toBe(vars.AUTH_JWT_SECRET);
      expect(config.BIND_HOST, `${name} listens on every interface of its container`).toBe('0.0.0.0');
    }
    // The secret has no default anywhere: compose refuses to start without it.
    expect(requiredVariables()).toContain('AUTH_JWT_SECRET');
    expect(raw).not.toMatch(/AUTH_JWT_SECRET:-/);
    // And production refuses to start without it (rather than generating a development key).
    const withoutSecret = { ...serviceEnvironment(auth, vars), AUTH_JWT_SECRET: '' };
    expect(() => loadConfig(withoutSecret)).toThrow(/AUTH_JWT_SECRET/);
  });

  it('sets only variables that lib/config.ts knows, and all of them', () => {
    const keys = configKeys();
    expect(keys.length).toBeGreaterThan(25);
    expect(keys).toContain('PORT');
    for (const [name, service] of nodeServices) {
      const env = Object.keys(serviceEnvironment(service, vars));
      expect(
        env.filter((key) => !keys.includes(key)),
        `${name}: variables the configuration does not read (typos?)`,
      ).toEqual([]);
      expect(
        keys.filter((key) => !env.includes(key)),
        `${name}: settings not passed on`,
      ).toEqual([]);
    }
  });

  it('AUTH_GRPC_ADDRESS and TICKET_GRPC_ADDRESS name the compose services and the ports they listen on', () => {
    const authConfig = configOf(auth);
    const ticketConfig = configOf(ticket);
    for (const [name, service] of [
      [gatewayName, gateway],
      [ticketName, ticket],
    ] as const) {
      const config = configOf(service);
      expect(hostPort(config.authGrpcAddress), `${name} -> auth`).toEqual([authName, authConfig.AUTH_GRPC_PORT]);
    }
    expect(hostPort(configOf(gateway).ticketGrpcAddress), 'gateway -> ticket').toEqual([ticketName, ticketConfig.TICKET_GRPC_PORT]);
  });

  it('publishes the gateway on 8080 and the gRPC ports on loopback, each to the port the process listens on', () => {
    const gatewayPorts = portsOf(gateway, vars);
    expect(gatewayPorts).toContainEqual({ hostIp: undefined, published: 8080, target: configOf(gateway).PORT });
    expect(configOf(gateway).PORT).toBe(8080);
    const [authPort] = portsOf(auth, vars);
    expect(authPort).toEqual({ hostIp: '127.0.0.1', published: 50052, target: configOf(auth).AUTH_GRPC_PORT });
    const [ticketPort] = portsOf(ticket, vars);
    expect(ticketPort).toEqual({ hostIp: '127.0.0.1', published: 50051, target: configOf(ticket).TICKET_GRPC_PORT });
    // The defaults in the compose file are the ones .env.example documents.
    expect(readEnvExample().values.HTTP_PORT).toBe('8080');
  });

  it('serves metrics on their own port inside the compose network, never published nor on the gateway port', () => {
    for (const [name, service] of [
      [gatewayName, gateway],
      [authName, auth],
      [ticketName, ticket],
    ] as const) {
      const config = configOf(service);
      expect(config.METRICS_PORT, name).toEqual(expect.any(Number));
      expect(config.METRICS_PORT, name).not.toBe(config.PORT);
      // reachable by a Prometheus on the compose network ...
      expect(config.METRICS_HOST, name).toBe('0.0.0.0');
      // ... and not from outside it
      expect(portsOf(service, vars).map((p) => p.target), name).not.toContain(config.METRICS_PORT);
    }
  });

  it('the database URLs point at the mysql service, as its user, at two schemas the init script creates', () => {
    expect(mysqlEntry).toBeDefined();
    const [mysqlName, mysql] = mysqlEntry!;
    const mysqlEnv = serviceEnvironment(mysql, vars);
    const initMount = (mysql.volumes ?? []).find((v) => v.includes('/docker-entrypoint-initdb.d/'));
    expect(initMount, 'an init script is mounted').toBeDefined();
    const initFile = path.join(ROOT, initMount!.split(':')[0]!);
    expect(existsSync(initFile), `${initFile} exists`).toBe(true);
    expect(initFile).not.toBe(path.join(ROOT, path.basename(initFile)));
    const init = readFileSync(initFile, 'utf8');
    const created = [...init.matchAll(/CREATE DATABASE IF NOT EXISTS `?(\w+)`?/gi)].map((m) => m[1]);

    const schemas = new Set<string>();
    for (const [name, service] of nodeServices) {
      const config = configOf(service);
      for (const [which, url] of [
        ['AUTH_DATABASE_URL', config.AUTH_DATABASE_URL],
        ['TICKET_DATABASE_URL', config.TICKET_DATABASE_URL],
      ] as const) {
        expect(url, `${name} ${which}`).toBeDefined();
        const parsed = new URL(url!);
        expect(parsed.hostname, `${name} ${which} host`).toBe(mysqlName);
        expect(Number(parsed.port || 3306)).toBe(3306);
        expect(decodeURIComponent(parsed.username)).toBe(mysqlEnv.MYSQL_USER);
        expect(decodeURIComponent(parsed.password)).toBe(mysqlEnv.MYSQL_PASSWORD);
        const schema = parsed.pathname.slice(1);
        expect(created, `${name} ${which}: the init script creates ${schema}`).toContain(schema);
        expect(init, `the init script grants ${schema} to the services' user`).toMatch(
          new RegExp(`GRANT ALL PRIVILEGES ON \`?${schema}\`?\\.\\* TO '${mysqlEnv.MYSQL_USER}'`),
        );
        schemas.add(`${which}=${schema}`);
      }
    }
    const auth = [...schemas].filter((s) => s.startsWith('AUTH')).map((s) => s.split('=')[1]);
    const tickets = [...schemas].filter((s) => s.startsWith('TICKET')).map((s) => s.split('=')[1]);
    expect(auth.length, 'every service agrees on the auth schema').toBe(1);
    expect(tickets.length, 'every service agrees on the ticket schema').toBe(1);
    expect(auth[0]).not.toBe(tickets[0]);
  });

  it('REDIS_URL points at the redis service', () => {
    const [redisName] = redisEntry!;
    for (const [name, service] of nodeServices) {
      const url = new URL(configOf(service).REDIS_URL!);
      expect([url.hostname, Number(url.port || 6379)], name).toEqual([redisName, 6379]);
    }
  });

  it('every long-running service has a health check; one-shot services are waited for to complete', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      if (oneShot(service)) continue;
      expect(service.healthcheck?.test, `${name} has a health check`).toBeDefined();
      expect(service.healthcheck?.disable, name).not.toBe(true);
    }
    const gatewayCheck = gateway.healthcheck!.test as string[];
    expect(gatewayCheck).toEqual(['CMD', 'node', 'dist/services/healthcheck.js', 'gateway']);
    expect(auth.healthcheck!.test).toEqual(['CMD', 'node', 'dist/services/healthcheck.js', 'auth']);
    expect(ticket.healthcheck!.test).toEqual(['CMD', 'node', 'dist/services/healthcheck.js', 'ticket']);
  });

  it('depends_on waits for service_healthy (service_completed_successfully for the migrations)', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [dependency, condition] of Object.entries(dependsOn(service))) {
        expect(compose.services[dependency], `${name} depends on an existing service ${dependency}`).toBeDefined();
        const expected = oneShot(compose.services[dependency]!) ? 'service_completed_successfully' : 'service_healthy';
        expect(condition, `${name} -> ${dependency}`).toBe(expected);
      }
    }
    const needs = (service: ComposeService) => Object.keys(dependsOn(service));
    expect(needs(migrate)).toContain(mysqlEntry![0]);
    expect(needs(auth)).toEqual(expect.arrayContaining([migrateName, mysqlEntry![0], redisEntry![0]]));
    expect(needs(ticket)).toEqual(expect.arrayContaining([migrateName, mysqlEntry![0]]));
    expect(needs(gateway)).toEqual(expect.arrayContaining([authName, ticketName]));
  });

  it('gives the processes longer than their shutdown grace period before SIGKILL', () => {
    for (const [name, service] of nodeServices) {
      if (oneShot(service)) continue;
      const seconds = Number(/^(\d+)s$/.exec(service.stop_grace_period ?? '')?.[1] ?? 10);
      expect(seconds, name).toBeGreaterThan(SHUTDOWN_GRACE_SECONDS);
    }
  });

  it('takes its secrets from .env, which .env.example documents (empty, so a copy cannot run with a known secret)', () => {
    const { values, commented } = readEnvExample();
    for (const name of ['AUTH_JWT_SECRET', 'INTERNAL_API_KEY', 'MYSQL_ROOT_PASSWORD', 'MYSQL_PASSWORD']) {
      expect(requiredVariables(), `${name} is required`).toContain(name);
      expect(values[name], `${name} is in .env.example, empty`).toBe('');
    }
    // Every variable the compose file reads is documented, and every setting of lib/config.ts too.
    const text = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
    const used = new Set([...text.matchAll(/\$\{([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]!));
    for (const name of used) expect(name in values, `${name} is in .env.example`).toBe(true);
    for (const key of configKeys()) expect(key in values || commented.has(key), `${key} is documented in .env.example`).toBe(true);
    // Defaults in the compose file agree with .env.example.
    for (const match of text.matchAll(/\$\{([A-Z_][A-Z0-9_]*):-([^}]*)\}/g)) {
      expect(values[match[1]!], `${match[1]} default`).toBe(match[2]);
    }
  });

  it('interpolates like compose', () => {
    expect(interpolate('a${X:-d}b', {})).toBe('adb');
    expect(interpolate('a${X:-d}b', { X: 'x' })).toBe('axb');
    expect(interpolate('$$HOME ${X}', { X: '1' })).toBe('$HOME 1');
    expect(() => interpolate('${X:?set X}', { X: '' })).toThrow(/set X/);
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const stages = dockerfile.split(/^FROM /m).slice(1);
  const runtime = stages.at(-1)!;

  it('builds with npm ci + npm run build and runs as a non-root user on node:20-slim with production dependencies only', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/RUN npm ci\b[^\n]*\n/);
    expect(dockerfile).toMatch(/RUN npm run build/);
    expect(runtime).toMatch(/^node:20-slim\b/);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/COPY --from=\S+ \/app\/dist \.\/dist/);
    expect(runtime).not.toMatch(/npm ci(?! --omit=dev)/);
    expect(runtime).toMatch(/^CMD \["node", "dist\/gateway\/main\.js"\]$/m);
  });

  it('keeps secrets and local state out of the build context', () => {
    const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['.env', 'node_modules', 'dist', 'data', '.git']) expect(ignored).toContain(entry);
  });
});
