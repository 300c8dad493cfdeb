import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config, type ProcessName } from '../../lib/config.js';
import { SHUTDOWN_OVERRUN_MS } from '../../lib/process/shutdown.js';
import { parsePrivateKey } from '../../lib/tokens/keys.js';
import { HAPROXY_CONFIG } from './load-balancer.js';
import {
  afterEntrypoint,
  containerArgv,
  commandOf,
  configKeys,
  exampleVariables,
  initSecrets,
  initService,
  interpolate,
  portsOf,
  readCompose,
  readEnvExample,
  requiredVariables,
  ROOT,
  SECRET_NAMES,
  SECRETS_SCRIPT as SECRETS_SCRIPT_PATH,
  secretsDirOf,
  serviceEnvironment,
  serviceRunning,
  SHARES_MOUNT,
  volumeAt,
  type ComposeService,
} from './compose-file.js';

/**
 * There is no Docker engine in CI: these checks read docker-compose.yml, .env.example, the
 * Dockerfile and the MySQL init script, and hold them against lib/config.ts and each other.
 * The secrets script (deploy/compose/secrets.sh) runs for real: the init service's command into a
 * temp dir standing in for the secrets volume, and each container's entrypoint in front of the
 * environment its process sees. The same topology runs as processes in topology.test.ts; the
 * real containers in ../shared/tools/compose-real.sh (by hand: it takes minutes).
 */
const compose = readCompose();
/** No .env: what a fresh clone runs with. */
const vars = exampleVariables();
const secretsVolume = mkdtempSync(path.join(tmpdir(), 'ticketing-secrets-'));
afterAll(() => {
  rmSync(secretsVolume, { recursive: true, force: true });
  rmSync(`${secretsVolume}.shares`, { recursive: true, force: true });
});
const [initName, init] = initService(compose);
const firstInit = initSecrets(secretsVolume, init, vars);
const stored = (dir: string) => Object.fromEntries(SECRET_NAMES.map((name) => [name, readFileSync(path.join(dir, name), 'utf8')]));
const generated = stored(secretsVolume);

const ENTRYPOINTS = {
  auth: 'dist/services/auth/main.js',
  ticket: 'dist/services/ticket/main.js',
  gateway: 'dist/gateway/main.js',
  migrate: 'dist/services/migrate.js',
  webhooks: 'dist/services/webhooks/worker.js',
} satisfies Partial<Record<ProcessName, string>>;
const [authName, auth] = serviceRunning(compose, ENTRYPOINTS.auth);
const [ticketName, ticket] = serviceRunning(compose, ENTRYPOINTS.ticket);
const [gatewayName, gateway] = serviceRunning(compose, ENTRYPOINTS.gateway);
const [migrateName, migrate] = serviceRunning(compose, ENTRYPOINTS.migrate);
const [webhooksName, webhooks] = serviceRunning(compose, ENTRYPOINTS.webhooks);
const [proxyName, proxy] = Object.entries(compose.services).find(([, s]) => s.image?.startsWith('haproxy:'))!;
const haproxyConfig = readFileSync(HAPROXY_CONFIG, 'utf8');
/** The port a `bind "${VAR-:port}"` line of haproxy.cfg listens on when VAR is unset (as in compose). */
const haproxyPort = (variable: string) => Number(new RegExp(`^\\s*bind "\\$\\{${variable}-:(\\d+)\\}"`, 'm').exec(haproxyConfig)![1]);
const nodeServices: Array<[string, ComposeService]> = [
  [authName, auth],
  [ticketName, ticket],
  [gatewayName, gateway],
  [migrateName, migrate],
  [webhooksName, webhooks],
];
const processOf = (service: ComposeService) => (Object.entries(ENTRYPOINTS).find(([, script]) => commandOf(service).includes(script))?.[0] ?? undefined) as ProcessName | undefined;

/**
 * Each workload's secrets, and nothing more (issue 21): the settings that carry one, and the
 * files of the secrets volume it mounts. The gateway has no database credentials; only the auth
 * service signs tokens; each service reaches its database as its own user.
 */
const SECRET_SETTINGS = ['AUTH_SIGNING_KEY', 'AUTH_RATE_LIMIT_SECRET', 'AUTH_JWT_SECRET', 'INTERNAL_API_KEY', 'AUTH_DATABASE_URL', 'TICKET_DATABASE_URL', 'WEBHOOK_DATABASE_URL', 'DATABASE_ADMIN_URL'];
const HOLDS: Record<string, { settings: string[]; files: string[] }> = {
  auth: { settings: ['AUTH_SIGNING_KEY', 'AUTH_RATE_LIMIT_SECRET', 'INTERNAL_API_KEY', 'AUTH_DATABASE_URL'], files: ['AUTH_SIGNING_KEY', 'AUTH_RATE_LIMIT_SECRET', 'INTERNAL_API_KEY', 'AUTH_MYSQL_PASSWORD'] },
  ticket: { settings: ['TICKET_DATABASE_URL'], files: ['TICKET_MYSQL_PASSWORD'] },
  // Its own user (issue 32, item 10): the outbox tables of the ticket schema only.
  webhooks: { settings: ['WEBHOOK_DATABASE_URL'], files: ['WEBHOOKS_MYSQL_PASSWORD'] },
  gateway: { settings: ['INTERNAL_API_KEY'], files: ['INTERNAL_API_KEY'] },
  migrate: { settings: ['AUTH_DATABASE_URL', 'TICKET_DATABASE_URL', 'WEBHOOK_DATABASE_URL', 'DATABASE_ADMIN_URL'], files: ['MYSQL_ROOT_PASSWORD', 'AUTH_MYSQL_PASSWORD', 'TICKET_MYSQL_PASSWORD', 'WEBHOOKS_MYSQL_PASSWORD'] },
  mysql: { settings: [], files: ['MYSQL_ROOT_PASSWORD'] },
  proxy: { settings: [], files: [] },
};
const mysqlEntry = Object.entries(compose.services).find(([, s]) => s.image?.startsWith('mysql:'));
const redisEntry = Object.entries(compose.services).find(([, s]) => s.image?.startsWith('redis:'));

/** What the service's command sees (its entrypoint has filled in the secrets of the volume it mounts). */
function envOf(service: ComposeService, dir = secretsVolume, variables = vars): Record<string, string> {
  return afterEntrypoint(serviceEnvironment(service, variables), secretsDirOf(service, init, dir) ?? path.join(dir, 'none'));
}

function configOf(service: ComposeService, dir = secretsVolume, variables = vars): Config {
  return loadConfig(envOf(service, dir, variables), processOf(service));
}

/** "dns:///host:port" (a target the clients resolve to every replica) -> [host, port]. */
function dnsTarget(address: string): [string, number] {
  const match = /^dns:\/\/\/([^:/]+):(\d+)$/.exec(address);
  expect(match, `${address} is a dns:/// target, balanced over every replica`).not.toBeNull();
  return [match![1]!, Number(match![2])];
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

  it("each node service's environment passes lib/config.ts for its own process, with NODE_ENV=production; the auth service has the signing key of the secrets volume", () => {
    const raw = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
    for (const [name, service] of nodeServices) {
      const config = configOf(service);
      expect(config.NODE_ENV, name).toBe('production');
      expect(config.BIND_HOST, `${name} listens on every interface of its container`).toBe('0.0.0.0');
    }
    expect(configOf(auth).AUTH_SIGNING_KEY).toBe(generated.AUTH_SIGNING_KEY);
    // No secret has a value in the file: .env or the generated one.
    for (const name of SECRET_NAMES) expect(raw, name).not.toMatch(new RegExp(`\\$\\{${name}:-[^}]`));
    // Production refuses to start the auth service without it (rather than generating a development key) ...
    const withoutSecret = { ...serviceEnvironment(auth, vars), AUTH_SIGNING_KEY: '' };
    expect(() => loadConfig(withoutSecret, 'auth')).toThrow(/AUTH_SIGNING_KEY/);
    // ... so it does not start without its entrypoint's secrets (no volume) either.
    const empty = mkdtempSync(path.join(tmpdir(), 'ticketing-no-secrets-'));
    try {
      expect(() => configOf(auth, path.join(empty, 'none'))).toThrow(/AUTH_SIGNING_KEY/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('sets only variables that lib/config.ts knows: every setting that is no secret, and of the secrets only those the process uses', () => {
    const keys = configKeys();
    expect(keys.length).toBeGreaterThan(25);
    expect(keys).toContain('PORT');
    for (const secret of SECRET_SETTINGS) expect(keys, secret).toContain(secret);
    for (const [name, service] of nodeServices) {
      const env = Object.keys(serviceEnvironment(service, vars));
      expect(
        env.filter((key) => !keys.includes(key)),
        `${name}: variables the configuration does not read (typos?)`,
      ).toEqual([]);
      expect(
        keys.filter((key) => !SECRET_SETTINGS.includes(key) && key !== 'AUTH_ACCEPTED_KEYS' && !env.includes(key)),
        `${name}: settings not passed on`,
      ).toEqual([]);
      expect(env.filter((key) => SECRET_SETTINGS.includes(key)).sort(), `${name}: the secrets it is given`).toEqual([...HOLDS[name]!.settings].sort());
    }
    expect(Object.keys(serviceEnvironment(auth, vars)), 'the keys a rotation still accepts').toContain('AUTH_ACCEPTED_KEYS');
  });

  it('AUTH_GRPC_ADDRESS and TICKET_GRPC_ADDRESS are dns:/// targets of the compose services and the ports they listen on', () => {
    const authConfig = configOf(auth);
    const ticketConfig = configOf(ticket);
    for (const [name, service] of [
      [gatewayName, gateway],
      [ticketName, ticket],
    ] as const) {
      const config = configOf(service);
      expect(dnsTarget(config.authGrpcAddress), `${name} -> auth`).toEqual([authName, authConfig.AUTH_GRPC_PORT]);
    }
    expect(dnsTarget(configOf(gateway).ticketGrpcAddress), 'gateway -> ticket').toEqual([ticketName, ticketConfig.TICKET_GRPC_PORT]);
  });

  it('publishes the load balancer on 8080 and the gRPC ports on loopback with no fixed host port, so every service but the load balancer scales', () => {
    expect(portsOf(proxy, vars)).toEqual([{ hostIp: undefined, published: 8080, target: haproxyPort('HTTP_BIND') }]);
    expect(readEnvExample().values.HTTP_PORT).toBe('8080');
    // The gateway publishes nothing: it is reached through HAProxy, which balances over every replica of it ...
    expect(portsOf(gateway, vars)).toEqual([]);
    expect(serviceEnvironment(proxy, vars).GATEWAYS).toBe(`${gatewayName}:${configOf(gateway).PORT}`);
    expect(haproxyConfig).toMatch(/^\s*server-template gateway \d+ "\$\{GATEWAYS\}"$/m);
    // ... and the services publish on loopback, a free host port per replica unless .env fixes one.
    expect(portsOf(auth, vars)).toEqual([{ hostIp: '127.0.0.1', published: undefined, target: configOf(auth).AUTH_GRPC_PORT }]);
    expect(portsOf(ticket, vars)).toEqual([{ hostIp: '127.0.0.1', published: undefined, target: configOf(ticket).TICKET_GRPC_PORT }]);
    expect(portsOf(auth, { ...vars, AUTH_GRPC_PUBLISHED_PORT: '50052' })[0]!.published).toBe(50052);
    // No container_name (a fixed name cannot be scaled) on any service.
    for (const [name, service] of Object.entries(compose.services)) expect((service as Record<string, unknown>).container_name, name).toBeUndefined();
  });

  it('the gateway trusts the one load balancer hop in front of it (the client address of its rate limits), and the load balancer holds no secret', () => {
    expect(configOf(gateway).TRUST_PROXY).toBe('1');
    expect(haproxyConfig).toMatch(/^\s*option forwardfor$/m);
    const proxyEnv = serviceEnvironment(proxy, vars);
    for (const name of [...SECRET_NAMES, ...SECRET_SETTINGS]) expect(proxyEnv[name], `${proxyName} gets no ${name}`).toBeUndefined();
    expect(proxy.volumes, `${proxyName} mounts its configuration only`).toEqual(['./deploy/compose/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro']);
    expect(dependsOn(proxy)[gatewayName]).toBe('service_started');
    // Its health check asks its own /ready on the admin port (load-balancer.test.ts runs both).
    const check = (proxy.healthcheck!.test as string[]).join(' ');
    expect(check).toContain(`/dev/tcp/127.0.0.1/${haproxyPort('ADMIN_BIND')}`);
    expect(check).toContain('GET /ready ');
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

  it('each service reaches its own schema on the mysql service as its own user; the migration run creates them as root', () => {
    expect(mysqlEntry).toBeDefined();
    const [mysqlName, mysql] = mysqlEntry!;
    const mysqlEnv = envOf(mysql);
    expect(mysqlEnv.MYSQL_ROOT_PASSWORD).toBe(generated.MYSQL_ROOT_PASSWORD);
    expect(mysqlEnv, 'no shared user made by the image').not.toHaveProperty('MYSQL_USER');
    const expected = {
      AUTH_DATABASE_URL: { user: 'ticketing_auth', password: generated.AUTH_MYSQL_PASSWORD, schema: 'ticketing_auth' },
      TICKET_DATABASE_URL: { user: 'ticketing_tickets', password: generated.TICKET_MYSQL_PASSWORD, schema: 'ticketing_tickets' },
      WEBHOOK_DATABASE_URL: { user: 'ticketing_webhooks', password: generated.WEBHOOKS_MYSQL_PASSWORD, schema: 'ticketing_tickets' },
    };
    for (const [name, service] of nodeServices) {
      const config = configOf(service);
      for (const which of ['AUTH_DATABASE_URL', 'TICKET_DATABASE_URL', 'WEBHOOK_DATABASE_URL'] as const) {
        const url = config[which];
        if (!HOLDS[name]!.settings.includes(which)) {
          expect(url, `${name} has no ${which}`).toBeUndefined();
          continue;
        }
        const parsed = new URL(url!);
        expect(parsed.hostname, `${name} ${which} host`).toBe(mysqlName);
        expect(Number(parsed.port || 3306)).toBe(3306);
        expect({ user: decodeURIComponent(parsed.username), password: decodeURIComponent(parsed.password), schema: parsed.pathname.slice(1) }, `${name} ${which}`).toEqual(expected[which]);
      }
    }
    // The migration run creates both users (services/database-users.ts; test/ops/database-users.test.ts) as root.
    const admin = new URL(configOf(migrate).DATABASE_ADMIN_URL!);
    expect([admin.hostname, decodeURIComponent(admin.username), decodeURIComponent(admin.password)]).toEqual([mysqlName, 'root', generated.MYSQL_ROOT_PASSWORD]);
    expect(dependsOn(auth)[migrateName]).toBe('service_completed_successfully');
    expect(dependsOn(ticket)[migrateName]).toBe('service_completed_successfully');
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
    // A health check runs beside the container's command, not through its entrypoint: it fills
    // in the secrets itself (the check reads the same configuration as the process).
    const gatewayCheck = gateway.healthcheck!.test as string[];
    expect(gatewayCheck).toEqual(['CMD', 'ticketing-secrets', 'node', 'dist/services/healthcheck.js', 'gateway']);
    expect(auth.healthcheck!.test).toEqual(['CMD', 'ticketing-secrets', 'node', 'dist/services/healthcheck.js', 'auth']);
    expect(ticket.healthcheck!.test).toEqual(['CMD', 'ticketing-secrets', 'node', 'dist/services/healthcheck.js', 'ticket']);
    expect((mysqlEntry![1].healthcheck!.test as string[]).slice(0, 2)).toEqual(['CMD', 'ticketing-secrets']);
  });

  it('depends_on waits for service_healthy (service_completed_successfully for the migrations; the proxy only for the gateways to start)', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [dependency, condition] of Object.entries(dependsOn(service))) {
        expect(compose.services[dependency], `${name} depends on an existing service ${dependency}`).toBeDefined();
        // The proxy answers 503 until a gateway is ready: it listens before they are healthy.
        const expected = oneShot(compose.services[dependency]!) ? 'service_completed_successfully' : name === proxyName ? 'service_started' : 'service_healthy';
        expect(condition, `${name} -> ${dependency}`).toBe(expected);
      }
    }
    const needs = (service: ComposeService) => Object.keys(dependsOn(service));
    expect(needs(migrate)).toContain(mysqlEntry![0]);
    expect(needs(auth)).toEqual(expect.arrayContaining([migrateName, mysqlEntry![0], redisEntry![0]]));
    expect(needs(ticket)).toEqual(expect.arrayContaining([migrateName, mysqlEntry![0]]));
    expect(needs(gateway)).toEqual(expect.arrayContaining([authName, ticketName]));
  });

  it('gives the processes their shutdown grace period, the overrun and 5 s of margin before SIGKILL; the load balancer more than its hard stop', () => {
    const MARGIN_MS = 5000;
    const secondsOf = (service: ComposeService) => Number(/^(\d+)s$/.exec(service.stop_grace_period ?? '')?.[1] ?? 10);
    for (const [name, service] of nodeServices) {
      if (oneShot(service)) continue;
      expect(secondsOf(service) * 1000, name).toBeGreaterThanOrEqual(configOf(service).SHUTDOWN_GRACE_MS + SHUTDOWN_OVERRUN_MS + MARGIN_MS);
    }
    const hardStop = Number(/^\s*hard-stop-after (\d+)s$/m.exec(haproxyConfig)![1]);
    expect(secondsOf(proxy) * 1000).toBeGreaterThanOrEqual(hardStop * 1000 + MARGIN_MS);
  });

  it('takes its secrets from .env when set there, which .env.example documents (empty, so a copy cannot run with a known secret)', () => {
    const { values, commented } = readEnvExample();
    for (const name of SECRET_NAMES) {
      expect(values[name], `${name} is in .env.example, empty`).toBe('');
      expect(serviceEnvironment(init, { ...vars, [name]: 'from-env' })[name], `${initName} is given ${name} from .env`).toBe('from-env');
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

describe('docker compose up with no .env: the secrets volume', () => {
  const raw = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
  const SECRETS_MOUNT = '/run/ticketing-secrets';
  const inits = (output: string, word: string) => output.split('\n').filter((line) => line.endsWith(` ${word}`)).length;

  it('needs no variable: everything resolves with an empty environment, as `docker compose config` with no .env', () => {
    expect([...requiredVariables()]).toEqual([]);
    expect(() => interpolate(raw, {})).not.toThrow();
    for (const [name, service] of Object.entries(compose.services)) {
      expect(() => serviceEnvironment(service, {}), name).not.toThrow();
    }
  });

  it('the init service writes the volume first, which no other service mounts; each reads its own volume, read-only, and waits for init', () => {
    expect(oneShot(init)).toBe(true);
    expect(init.user, 'writes the volumes whoever owns them').toBe('root');
    expect(volumeAt(init, SECRETS_MOUNT)).toBe('secrets');
    expect(compose.volumes).toHaveProperty('secrets');
    const waitsForInit = (name: string, seen = new Set<string>()): boolean => {
      if (seen.has(name)) return false;
      seen.add(name);
      const needs = Object.keys(dependsOn(compose.services[name]!));
      return needs.includes(initName) || needs.some((dependency) => waitsForInit(dependency, seen));
    };
    for (const [name, service] of Object.entries(compose.services)) {
      if (name === initName) continue;
      const mounts = (service.volumes ?? []).filter((v) => v.split(':')[1]?.startsWith('/run/ticketing'));
      expect(mounts.every((v) => !v.startsWith('secrets:')), `${name} does not mount the volume of all secrets`).toBe(true);
      const own = volumeAt(service, SECRETS_MOUNT);
      if (!own) continue;
      expect(mounts, `${name} reads its own volume, read-only`).toEqual([`${own}:${SECRETS_MOUNT}:ro`]);
      expect(compose.volumes, name).toHaveProperty(own);
      expect(init.volumes!.some((v) => v.startsWith(`${own}:${SHARES_MOUNT}/`)), `${initName} fills ${own}`).toBe(true);
      expect(waitsForInit(name), `${name} starts after ${initName}`).toBe(true);
    }
    // Where the script looks by default is where the volumes are mounted.
    const script = readFileSync(SECRETS_SCRIPT_PATH, 'utf8');
    expect(script).toContain(`TICKETING_SECRETS_DIR:-${SECRETS_MOUNT}}`);
    expect(script).toContain(`TICKETING_SECRETS_SHARES_DIR:-${SHARES_MOUNT}}`);
  });

  it('ticketing-secrets runs before every command: the entrypoint of the image and of mysql, mounted from the same script', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^COPY deploy\/compose\/secrets\.sh \/usr\/local\/bin\/ticketing-secrets$/m);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["ticketing-secrets"\]$/m);
    for (const [name, service] of nodeServices) expect(service.entrypoint, `${name} keeps the image's entrypoint`).toBeUndefined();
    const [mysqlName, mysql] = mysqlEntry!;
    expect(mysql.entrypoint, `${mysqlName}: then the image's own entrypoint`).toEqual(['ticketing-secrets', 'docker-entrypoint.sh']);
    expect(mysql.volumes).toContain('./deploy/compose/secrets.sh:/usr/local/bin/ticketing-secrets:ro');
    // Not behind the image's entrypoint: that would fill in the stored secrets first, and init would take them for .env's.
    expect(init.entrypoint).toEqual(['ticketing-secrets', 'init']);
    expect(containerArgv(init).slice(0, 2)).toEqual(['ticketing-secrets', 'init']);
    expect(containerArgv(auth)).toEqual(['ticketing-secrets', 'node', ENTRYPOINTS.auth]);
  });

  it('generates the secrets on the first start, each different (the signing key an EC P-256 key), and keeps them on the next', () => {
    expect(inits(firstInit, 'generated')).toBe(SECRET_NAMES.length);
    for (const name of SECRET_NAMES.filter((n) => n !== 'AUTH_SIGNING_KEY')) expect(generated[name], name).toMatch(/^[0-9a-f]{64}$/);
    expect(parsePrivateKey(generated.AUTH_SIGNING_KEY!).asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(new Set(Object.values(generated)).size).toBe(SECRET_NAMES.length);
    const again = initSecrets(secretsVolume, init, vars);
    expect(inits(again, 'kept')).toBe(SECRET_NAMES.length);
    expect(stored(secretsVolume)).toEqual(generated);
    for (const name of SECRET_NAMES) expect(firstInit + again, 'secrets are never printed').not.toContain(generated[name]);
  });

  it('each workload holds exactly its own secrets, in its volume and in its environment', () => {
    const workloads = Object.entries(compose.services).filter(([name]) => name !== initName && name !== redisEntry![0]);
    expect(workloads.map(([name]) => name).sort()).toEqual(Object.keys(HOLDS).sort());
    for (const [name, service] of workloads) {
      const dir = secretsDirOf(service, init, secretsVolume);
      const files = dir && existsSync(dir) ? readdirSync(dir).sort() : [];
      expect(files, `${name}: the files of its secrets volume`).toEqual([...HOLDS[name]!.files].sort());
      for (const file of files) expect(readFileSync(path.join(dir!, file), 'utf8'), `${name} ${file}`).toBe(generated[file as keyof typeof generated]);
      const env = envOf(service);
      const given = Object.entries(env).filter(([key, value]) => value && (SECRET_SETTINGS.includes(key) || (SECRET_NAMES as readonly string[]).includes(key)));
      const expected = name === mysqlEntry![0] ? ['MYSQL_ROOT_PASSWORD'] : HOLDS[name]!.settings;
      expect(given.map(([key]) => key).sort(), `${name}: the secrets in its environment`).toEqual([...expected].sort());
    }
    const gatewayConfig = configOf(gateway);
    expect(gatewayConfig.INTERNAL_API_KEY).toBe(generated.INTERNAL_API_KEY);
    expect(configOf(auth).INTERNAL_API_KEY).toBe(generated.INTERNAL_API_KEY);
    expect(configOf(auth).AUTH_RATE_LIMIT_SECRET).toBe(generated.AUTH_RATE_LIMIT_SECRET);
  });

  it('.env overrides each secret, in the volume and in the services that hold it; the last value stays when it is removed again', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ticketing-secrets-'));
    try {
      initSecrets(dir, init, vars);
      const before = stored(dir);
      const dotEnv = { ...vars, AUTH_SIGNING_KEY: generated.AUTH_SIGNING_KEY!, AUTH_MYSQL_PASSWORD: 'chosen-by-the-operator' };
      const output = initSecrets(dir, init, dotEnv);
      expect(inits(output, 'from .env')).toBe(2);
      expect(stored(dir)).toEqual({ ...before, AUTH_SIGNING_KEY: dotEnv.AUTH_SIGNING_KEY, AUTH_MYSQL_PASSWORD: dotEnv.AUTH_MYSQL_PASSWORD });
      expect(configOf(auth, dir, dotEnv).AUTH_SIGNING_KEY).toBe(dotEnv.AUTH_SIGNING_KEY);
      expect(configOf(auth, dir, dotEnv).INTERNAL_API_KEY).toBe(before.INTERNAL_API_KEY);
      for (const service of [auth, migrate]) expect(new URL(configOf(service, dir, dotEnv).AUTH_DATABASE_URL!).password).toBe(dotEnv.AUTH_MYSQL_PASSWORD);
      // Taken out of .env again: the stored value stays (tokens stay valid, MySQL keeps its password).
      initSecrets(dir, init, vars);
      expect(stored(dir).AUTH_SIGNING_KEY).toBe(dotEnv.AUTH_SIGNING_KEY);
      expect(configOf(auth, dir).AUTH_SIGNING_KEY).toBe(dotEnv.AUTH_SIGNING_KEY);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(`${dir}.shares`, { recursive: true, force: true });
    }
  });

  it('a volume from before signing keys: its AUTH_JWT_SECRET becomes the rate-limit secret, a signing key is generated, and no service gets the old secret', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ticketing-secrets-'));
    try {
      const legacy = 'f'.repeat(64);
      writeFileSync(path.join(dir, 'AUTH_JWT_SECRET'), legacy);
      initSecrets(dir, init, vars);
      expect(stored(dir).AUTH_RATE_LIMIT_SECRET).toBe(legacy);
      expect(configOf(auth, dir).AUTH_RATE_LIMIT_SECRET).toBe(legacy);
      for (const [name, service] of nodeServices) expect(envOf(service, dir).AUTH_JWT_SECRET ?? '', name).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(`${dir}.shares`, { recursive: true, force: true });
    }
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const stages = dockerfile.split(/^FROM /m).slice(1);
  const runtime = stages.at(-1)!;

  const fromOf = (stage: string) => stage.split(/\s/)[0]!;
  const packageJson = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; engines: { node: string }; version: string; license: string };

  it('builds with npm ci + npm run build and runs as a non-root user on node:24-slim with production dependencies only', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/RUN npm ci\b[^\n]*\n/);
    expect(dockerfile).toMatch(/RUN npm run build/);
    expect(runtime).toMatch(/^node:24(\.\d+)*-slim\b/);
    expect(dockerfile).toMatch(/npm prune --omit=dev/);
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/COPY --from=\S+ \/app\/dist \.\/dist/);
    expect(runtime).not.toMatch(/npm (ci|install|prune)/);
    expect(runtime).toMatch(/^CMD \["node", "dist\/gateway\/main\.js"\]$/m);
  });

  it('on Node.js 24 (LTS) in every stage, which package.json engines allows, as it does the Node the tests run on', () => {
    for (const stage of stages) {
      const base = fromOf(stage);
      // A stage built FROM an earlier stage inherits its Node.
      if (!base.startsWith('node:')) continue;
      expect(base, 'node:24.x and node:24.x-slim: the same Debian release, so the native module built in one runs in the other').toMatch(/^node:24(\.\d+)*(-slim)?$/);
    }
    // CI tests the Node of the image (.ci/node24), to its minor version.
    const ciNode = /NODE24_VERSION:-(\d+\.\d+)\.\d+\}/.exec(readFileSync(path.join(ROOT, '.ci/node24'), 'utf8'))?.[1];
    for (const stage of stages.filter((stage) => fromOf(stage).startsWith('node:'))) expect(fromOf(stage), 'as CI tests').toMatch(new RegExp(`^node:${ciNode}(-slim)?$`));
    expect(packageJson.engines.node).toMatch(/\^24\./);
    expect(packageJson.engines.node).toMatch(new RegExp(`\\^${process.versions.node.split('.')[0]}\\.`));
  });

  it('installs once (better-sqlite3 is compiled once), checks what npm installed, and needs no registry but npm\'s', () => {
    expect(dockerfile.match(/npm ci\b/g), 'one npm ci').toHaveLength(1);
    expect(dockerfile).not.toMatch(/npm (install|rebuild)\b/);
    // npm can exit 0 without having installed everything ("Exit handler never called!"): npm ls fails then.
    for (const line of dockerfile.split('\n').filter((l) => /^RUN .*npm (ci|prune)\b/.test(l))) {
      expect(line, 'checked by npm ls in the same step').toMatch(/&& npm ls\b/);
    }
    // A `# syntax=` line makes BuildKit pull a frontend image from Docker Hub.
    expect(dockerfile).not.toMatch(/^#\s*syntax\s*=/m);
  });

  it('labels the image with the OCI annotations: title, version and licence of package.json, the base it runs on, the revision and time a build passes in', () => {
    const labels = Object.fromEntries([...runtime.matchAll(/(org\.opencontainers\.image\.[a-z.]+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    const args = Object.fromEntries([...runtime.matchAll(/^ARG (\w+)=(\S*)$/gm)].map((m) => [m[1]!, m[2]!]));
    expect(labels['org.opencontainers.image.title']).toBe(packageJson.name);
    expect(labels['org.opencontainers.image.licenses']).toBe(packageJson.license);
    expect(labels['org.opencontainers.image.version']).toBe('$VERSION');
    expect(args.VERSION, 'the version package.json says').toBe(packageJson.version);
    expect(labels['org.opencontainers.image.revision']).toBe('$REVISION');
    expect(labels['org.opencontainers.image.created']).toBe('$CREATED');
    expect(labels['org.opencontainers.image.base.name']).toBe(fromOf(runtime));
    expect(labels['org.opencontainers.image.description']).toBeTruthy();
  });

  it('keeps secrets and local state out of the build context', () => {
    const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['.env', 'node_modules', 'dist', 'data', '.git']) expect(ignored).toContain(entry);
  });
});
