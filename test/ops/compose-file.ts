import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** Reading docker-compose.yml and .env.example the way `docker compose` does (the parts this project uses). */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ComposeService {
  image?: string;
  build?: unknown;
  entrypoint?: string[] | string;
  user?: string;
  command?: string[] | string;
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: Array<string | { target: number; published?: string | number; host_ip?: string }>;
  healthcheck?: { test?: string[] | string; disable?: boolean; [key: string]: unknown };
  depends_on?: Record<string, { condition?: string }> | string[];
  volumes?: string[];
  restart?: string;
  stop_grace_period?: string;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

export function readCompose(): ComposeFile {
  return parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as ComposeFile;
}

/** KEY=VALUE lines of .env.example (comments and blank lines skipped; commented-out keys reported apart). */
export function readEnvExample(): { values: Record<string, string>; commented: Set<string> } {
  const values: Record<string, string> = {};
  const commented = new Set<string>();
  for (const line of readFileSync(path.join(ROOT, '.env.example'), 'utf8').split('\n')) {
    const set = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (set) {
      values[set[1]!] = set[2]!.replace(/^(['"])(.*)\1$/, '$2');
      continue;
    }
    const off = /^#\s*([A-Z][A-Z0-9_]*)=/.exec(line);
    if (off) commented.add(off[1]!);
  }
  return { values, commented };
}

/** Names used as `${NAME:?...}` / `${NAME?...}` anywhere in the compose file: values compose refuses to start without. */
export function requiredVariables(): Set<string> {
  const text = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
  return new Set([...text.matchAll(/\$\{([A-Z_][A-Z0-9_]*):?\?/g)].map((m) => m[1]!));
}

/**
 * The variables compose would interpolate with: .env.example, where the secrets it leaves empty
 * on purpose (so that a copied file cannot start with a known secret) get fresh random values.
 */
export function exampleVariables(): Record<string, string> {
  const { values } = readEnvExample();
  const vars = { ...values };
  for (const name of requiredVariables()) {
    if (!vars[name]) vars[name] = randomBytes(32).toString('hex');
  }
  return vars;
}

/** Compose interpolation: $$, $NAME, ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:?error}, ${NAME?error}, ${NAME:+alt}. */
export function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\$|\$([A-Za-z_][A-Za-z0-9_]*)|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?+])([^}]*))?\}/g, (match, bare, name, colon, op, arg) => {
    if (match === '$$') return '$';
    if (bare) return vars[bare] ?? '';
    const value = vars[name];
    const missing = colon ? !value : value === undefined;
    if (op === undefined) return value ?? '';
    if (op === '-') return missing ? arg : value!;
    if (op === '+') return missing ? '' : arg;
    if (missing) throw new Error(`required variable ${name} is missing: ${arg}`);
    return value!;
  });
}

/** A service's environment after interpolation, as strings (what the process sees). */
export function serviceEnvironment(service: ComposeService, vars: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  const raw = service.environment ?? {};
  const entries = Array.isArray(raw) ? raw.map((item) => item.split(/=(.*)/s, 2) as [string, string]) : Object.entries(raw);
  for (const [key, value] of entries) env[key] = value === null || value === undefined ? (vars[key] ?? '') : interpolate(String(value), vars);
  return env;
}

export function commandOf(service: ComposeService): string[] {
  return typeof service.command === 'string' ? service.command.split(/\s+/) : (service.command ?? []);
}

export interface PortMapping {
  hostIp?: string;
  published?: number;
  target: number;
}

/** Short syntax "[ip:][published:]target[/proto]" or the long syntax, after interpolation. */
export function portsOf(service: ComposeService, vars: Record<string, string>): PortMapping[] {
  return (service.ports ?? []).map((port) => {
    if (typeof port === 'object') {
      return { hostIp: port.host_ip, published: port.published === undefined ? undefined : Number(port.published), target: Number(port.target) };
    }
    const parts = interpolate(port, vars).replace(/\/(tcp|udp)$/, '').split(':');
    const target = Number(parts.pop());
    // "127.0.0.1::50052": an empty published port is any free host port, as none at all.
    const publishedPart = parts.pop();
    const published = publishedPart ? Number(publishedPart) : undefined;
    return { hostIp: parts.pop(), published, target };
  });
}

/** The keys of the configuration schema in lib/config.ts (read from its source: the schema is not exported). */
export function configKeys(): string[] {
  const source = readFileSync(path.join(ROOT, 'lib/config.ts'), 'utf8');
  const body = source.slice(source.indexOf('z.object({'), source.indexOf('});', source.indexOf('z.object({')));
  return [...body.matchAll(/^\s{2}([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]!);
}

/** The service that runs a given entrypoint (e.g. 'dist/services/auth/main.js'). */
export function serviceRunning(compose: ComposeFile, script: string): [string, ComposeService] {
  const found = Object.entries(compose.services).find(([, service]) => commandOf(service).includes(script));
  if (!found) throw new Error(`no compose service runs ${script}`);
  return found;
}

/** deploy/compose/secrets.sh: `ticketing-secrets` in the image (its entrypoint) and in the mysql container. */
export const SECRETS_SCRIPT = path.join(ROOT, 'deploy/compose/secrets.sh');
export const SECRET_NAMES = ['AUTH_SIGNING_KEY', 'AUTH_RATE_LIMIT_SECRET', 'INTERNAL_API_KEY', 'MYSQL_ROOT_PASSWORD', 'AUTH_MYSQL_PASSWORD', 'TICKET_MYSQL_PASSWORD', 'WEBHOOKS_MYSQL_PASSWORD'] as const;
/** Where the init service mounts each service's own secrets volume: its subdirectory SHARE of this. */
export const SHARES_MOUNT = '/run/ticketing-shares';

/** A Dockerfile instruction in exec form (`ENTRYPOINT ["a", "b"]`) as its argv. */
function dockerfileArgv(instruction: 'ENTRYPOINT' | 'CMD'): string[] {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const found = [...dockerfile.matchAll(new RegExp(`^${instruction} (\\[.*\\])$`, 'gm'))].at(-1);
  return found ? (JSON.parse(found[1]!) as string[]) : [];
}

/**
 * What a container of a service runs, as docker does: its entrypoint (or the image's ENTRYPOINT),
 * then its command (or the image's CMD, which an entrypoint of its own clears).
 */
export function containerArgv(service: ComposeService): string[] {
  const own = service.entrypoint === undefined ? undefined : typeof service.entrypoint === 'string' ? service.entrypoint.split(/\s+/) : service.entrypoint;
  const entrypoint = own ?? (service.build ? dockerfileArgv('ENTRYPOINT') : []);
  const command = service.command !== undefined ? commandOf(service) : own || !service.build ? [] : dockerfileArgv('CMD');
  return [...entrypoint, ...command];
}

/**
 * The init service's container, run as docker would, with `dir` standing in for the secrets
 * volume, `dir`.shares/SHARE for each service's own volume, and `vars` for .env; returns what it printed.
 */
export function initSecrets(dir: string, init: ComposeService, vars: Record<string, string>): string {
  const argv = containerArgv(init).flatMap((part) => (part === 'ticketing-secrets' ? ['sh', SECRETS_SCRIPT] : [part]));
  return execFileSync(argv[0]!, argv.slice(1), {
    env: { PATH: process.env.PATH, ...serviceEnvironment(init, vars), TICKETING_SECRETS_DIR: dir, TICKETING_SECRETS_SHARES_DIR: `${dir}.shares` },
    encoding: 'utf8',
  });
}

/** The volume a service mounts at `target` ("name:/path[:ro]"), if any. */
export function volumeAt(service: ComposeService, target: string): string | undefined {
  return (service.volumes ?? []).map((v) => v.split(':')).find(([, path]) => path === target)?.[0];
}

/**
 * Where, after initSecrets(dir, init), the files of the secrets volume a service mounts are:
 * the share of init that is the same volume (undefined when the service mounts none).
 */
export function secretsDirOf(service: ComposeService, init: ComposeService, dir: string): string | undefined {
  const volume = volumeAt(service, '/run/ticketing-secrets');
  if (volume === undefined) return undefined;
  if (volume === volumeAt(init, '/run/ticketing-secrets')) return dir;
  const mount = (init.volumes ?? []).map((v) => v.split(':')).find(([name, path]) => name === volume && path!.startsWith(`${SHARES_MOUNT}/`));
  if (!mount) throw new Error(`init does not fill the volume ${volume}`);
  return `${dir}.shares/${mount[1]!.slice(SHARES_MOUNT.length + 1)}`;
}

/** The environment a container's command sees: `env` after the entrypoint `ticketing-secrets`, with the volume at `dir`. */
export function afterEntrypoint(env: Record<string, string>, dir: string): Record<string, string> {
  const printEnv = ['-e', 'process.stdout.write(JSON.stringify(process.env))'];
  const out = execFileSync('sh', [SECRETS_SCRIPT, process.execPath, ...printEnv], {
    env: { PATH: process.env.PATH, ...env, TICKETING_SECRETS_DIR: dir },
    encoding: 'utf8',
  });
  const seen = JSON.parse(out) as Record<string, string>;
  // What the shell adds on its own (PWD, SHLVL, ...) is not the service's environment; a secret it exported is.
  const keys = new Set([...Object.keys(env), ...SECRET_NAMES.filter((name) => name in seen)]);
  return Object.fromEntries([...keys].map((key) => [key, seen[key] ?? '']));
}

/** The one-shot service that writes the secrets volume (`ticketing-secrets init`). */
export function initService(compose: ComposeFile): [string, ComposeService] {
  const found = Object.entries(compose.services).find(([, service]) => containerArgv(service).slice(0, 2).join(' ') === 'ticketing-secrets init');
  if (!found) throw new Error('no compose service runs ticketing-secrets init');
  return found;
}
