import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, request, uniqueEmail } from '../support/http.js';
import { createTestDatabases, deleteRedisKeys } from '../support/resources.js';
import { startTestStack, testBackend, type TestStack } from '../support/stack.js';
import { runCli } from '../../services/cli/main.js';
import { ROOT } from './compose-file.js';
import { generatePrivateKey } from '../../lib/tokens/keys.js';

/**
 * The admin CLI on this run's own databases: SQLite files in a temp DATA_DIR, or its own MySQL
 * databases and Redis prefix (TEST_BACKEND=mysql). `cli` runs it as operators do, a child process
 * (`node --import tsx services/cli/main.ts`, what `npm run cli --` and the built `ticketing` bin
 * run): for what only a process shows (exit status, stdin, a bad environment, the process ending
 * with its pools closed). `inProcess` calls the same entry point, `runCli`, in this process with the
 * same environment: for the many cases in between (a child process costs a second or two each).
 */

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const cliEnv: Record<string, string> = {};
const cleanups: Array<() => Promise<void>> = [];

function cli(args: string[], options: { stdin?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'services/cli/main.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? tmpdir(), ...cliEnv, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

/** `runCli` in this process, with the environment a child process would get (no stdin). */
async function inProcess(args: string[], options: { env?: Record<string, string> } = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io = { out: (text: string) => (stdout += `${text}\n`), err: (text: string) => (stderr += `${text}\n`) };
  const code = await runCli(args, { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? tmpdir(), ...cliEnv, ...options.env }, io);
  return { code, stdout, stderr };
}

/** A successful --json run's result (in this process). */
async function cliJson(args: string[], options: { env?: Record<string, string> } = {}): Promise<any> {
  const result = await inProcess([...args, '--json'], options);
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  return JSON.parse(result.stdout);
}

function expectNoStackTrace(run: Run): void {
  expect(run.stderr).not.toMatch(/^\s+at /m);
  expect(run.stdout).not.toMatch(/^\s+at /m);
}

/** The environment of CLI runs on new, empty databases of their own, removed in afterAll. */
async function ownDatabases(): Promise<Record<string, string>> {
  const id = `cli${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ticketing-cli-'));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const env: Record<string, string> = { DATA_DIR: dataDir, AUTH_SIGNING_KEY: generatePrivateKey(), AUTH_RATE_LIMIT_SECRET: randomBytes(32).toString('hex'), NODE_ENV: 'production' };
  if (testBackend() === 'mysql') {
    const redisUrl = process.env.TEST_REDIS_URL!;
    const databases = await createTestDatabases(process.env.TEST_MYSQL_URL!, id);
    cleanups.push(() => databases.drop());
    const prefix = `test:${id}:`;
    Object.assign(env, { AUTH_DATABASE_URL: databases.authUrl, TICKET_DATABASE_URL: databases.ticketUrl, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix });
    cleanups.push(() => deleteRedisKeys(redisUrl, prefix));
  }
  return env;
}

beforeAll(async () => {
  Object.assign(cliEnv, await ownDatabases());
}, 60_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
}, 60_000);

const COMMANDS = [['migrate'], ['user', 'create'], ['company', 'create'], ['company', 'add-member'], ['client', 'create'], ['token', 'issue'], ['sessions', 'revoke']];

describe('ticketing CLI: usage', () => {
  it('--help lists every command; every command and group has --help; exit 0', async () => {
    const top = await cli(['--help']);
    expect(top.code).toBe(0);
    // `ticketing` exists only once built and installed: the help names what works from a checkout.
    expect(top.stdout).toContain('from a checkout: npm run -s cli -- <command> [options]');
    for (const command of COMMANDS) expect(top.stdout).toContain(command.join(' '));
    const helps = await Promise.all([...COMMANDS.map((command) => inProcess([...command, '--help'])), inProcess(['help', 'token', 'issue']), inProcess(['company', '-h'])]);
    COMMANDS.forEach((command, i) => {
      expect(helps[i]!.code, command.join(' ')).toBe(0);
      expect(helps[i]!.stdout).toContain(`Usage: ticketing ${command.join(' ')}`);
      expect(helps[i]!.stdout).toContain('--json');
    });
    expect(helps[COMMANDS.length]!.stdout).toContain('Usage: ticketing token issue --email <email> [--company <guid|list|*>]');
    expect(helps[COMMANDS.length + 1]!.stdout).toContain('company add-member');
    expect(helps[COMMANDS.length + 1]!.code).toBe(0);
  }, 180_000);

  it('unknown commands and options, missing or empty values: a message on stderr and exit 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /no command given/],
      [['frobnicate'], /unknown command 'frobnicate'/],
      [['user'], /ticketing user needs a command/],
      [['user', 'delete'], /unknown command 'user delete'/],
      [['user', 'create', '--email', 'a@example.com', '--name', 'A', '--password', 'correct horse', '--admin'], /unknown option --admin/],
      [['user', 'create', '--name', 'A', '--password', 'correct horse'], /missing required option --email/],
      [['user', 'create', '--email', 'a@example.com', '--name', 'A'], /missing required option --password or --password-stdin/],
      [['token', 'issue', '--email'], /option --email needs a value/],
      [['token', 'issue', '--email', ''], /--email must not be empty/],
      [['token', 'issue', 'extra', '--email', 'a@example.com'], /unknown command 'token issue'|unexpected argument/],
      [['company', 'add-member', '--company', 'not-a-guid', '--email', 'a@example.com'], /--company must be a company GUID/],
    ];
    const runs = await Promise.all(cases.map(([args]) => inProcess(args)));
    cases.forEach(([args, message], i) => {
      const run = runs[i]!;
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(message);
      expect(run.stdout, args.join(' ')).toBe('');
      expectNoStackTrace(run);
    });
    const json = await cli(['frobnicate', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toEqual({ error: "unknown command 'frobnicate'", exit_code: 2 });
  }, 180_000);

  it('a bad configuration is exit 2 naming the variable; an unreachable database is exit 1 with one line', async () => {
    const badConfig = await cli(['migrate'], { env: { AUTH_RATE_LIMIT_SECRET: 'short' } });
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toMatch(/AUTH_RATE_LIMIT_SECRET: must be at least 32 characters/);
    expectNoStackTrace(badConfig);
    const down = await cli(['token', 'issue', '--email', 'a@example.com'], { env: { AUTH_DATABASE_URL: 'mysql://root@127.0.0.1:1/nothing' } });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^error: .*ECONNREFUSED/);
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
    expectNoStackTrace(down);
  }, 180_000);
});

describe('ticketing CLI: commands', () => {
  const email = uniqueEmail('cli');
  const password = 'correct horse battery';
  let user: any;
  let secondCompany: any;
  let stack: TestStack;

  /**
   * What the token, client and sessions tests share: migrated databases, a user `email` of
   * 'Cli Co' and 'Second Co', and a stack on the same databases. The migrate, user and company
   * tests make their own databases or user, so that every test passes in any order.
   */
  beforeAll(async () => {
    expect((await inProcess(['migrate'])).code).toBe(0);
    user = await cliJson(['user', 'create', '--email', email, '--name', 'Cli User', '--password', password, '--company-name', 'Cli Co']);
    secondCompany = await cliJson(['company', 'create', '--name', 'Second Co', '--owner', email]);
    stack = await startTestStack(stackOverrides());
  }, 180_000);
  afterAll(() => stack?.stop());

  it('migrate applies the migrations of both databases, then finds nothing to do', async () => {
    const env = await ownDatabases();
    const first = await cliJson(['migrate'], { env });
    expect(first.applied.auth.length).toBeGreaterThan(0);
    expect(first.applied.ticket.length).toBeGreaterThan(0);
    const again = await cli(['migrate'], { env });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('auth: already up to date\nticket: already up to date\n');
  }, 180_000);

  describe('user create', () => {
    const email = uniqueEmail('cli');
    let user: any;

    it('user create makes the user and its company, also with sign-up switched off; a duplicate or bad values are exit 1', async () => {
      user = await cliJson(['user', 'create', '--email', email, '--name', 'Cli User', '--password', password, '--company-name', 'Cli Co'], {
        env: { SIGNUP_ENABLED: 'false' },
      });
      expect(user).toMatchObject({ email, name: 'Cli User', guid: expect.any(String), default_company_id: expect.any(String) });

      const viaStdin = await cli(['user', 'create', '--email', uniqueEmail('stdin'), '--name', 'Stdin', '--password-stdin'], { stdin: `${password}\n` });
      expect(viaStdin.code, viaStdin.stderr).toBe(0);
      expect(viaStdin.stdout).toMatch(/^Created user [0-9a-f-]{36} <stdin-[0-9a-f]+@example\.com>, default company [0-9a-f-]{36}\.\n$/);

      const duplicate = await inProcess(['user', 'create', '--email', email.toUpperCase(), '--name', 'Again', '--password', password]);
      expect(duplicate.code).toBe(1);
      expect(duplicate.stderr).toBe('error: A user with this e-mail address already exists\n');
      const invalid = await inProcess(['user', 'create', '--email', 'not-an-email', '--name', 'X', '--password', 'short']);
      expect(invalid.code).toBe(1);
      expect(invalid.stderr).toMatch(/--email must be an e-mail address; --password must be at least 8 characters/);
      expectNoStackTrace(invalid);
    }, 180_000);
  });

  describe('company', () => {
    const email = uniqueEmail('cli');
    let user: any;
    let secondCompany: any;

    beforeAll(async () => {
      user = await cliJson(['user', 'create', '--email', email, '--name', 'Cli User', '--password', password]);
    }, 180_000);

    it('company create and add-member', async () => {
      secondCompany = await cliJson(['company', 'create', '--name', 'Second Co', '--owner', email]);
      expect(secondCompany).toMatchObject({ name: 'Second Co', guid: expect.any(String), owner_id: user.guid });

      const otherEmail = uniqueEmail('member');
      const other = await cliJson(['user', 'create', '--email', otherEmail, '--name', 'Member', '--password', password]);
      const added = await cliJson(['company', 'add-member', '--company', secondCompany.guid, '--email', otherEmail]);
      expect(added).toEqual({ company_id: secondCompany.guid, user_id: other.guid, added: true });
      const again = await inProcess(['company', 'add-member', '--company', secondCompany.guid, '--email', otherEmail]);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('is already a member of "Second Co"');

      const runs = await Promise.all([
        inProcess(['company', 'create', '--name', 'X', '--owner', 'nobody@example.com']),
        inProcess(['company', 'add-member', '--company', randomUUID(), '--email', otherEmail]),
        inProcess(['company', 'add-member', '--company', secondCompany.guid, '--email', 'nobody@example.com']),
      ]);
      expect(runs.map((r) => r.code)).toEqual([1, 1, 1]);
      expect(runs[0]!.stderr).toBe('error: no user with e-mail nobody@example.com\n');
      expect(runs[1]!.stderr).toMatch(/^error: no company [0-9a-f-]{36}\n$/);
      expect(runs[2]!.stderr).toBe('error: no user with e-mail nobody@example.com\n');
    }, 180_000);
  });

  it('token issue: a real session that a stack on the same databases accepts; --company picks the companies', async () => {
    const text = await cli(['token', 'issue', '--email', email]);
    expect(text.code, text.stderr).toBe(0);
    const token = text.stdout.trim();
    expect(text.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);

    const all = await cliJson(['token', 'issue', '--email', email, '--company', '*']);
    expect(all.companies.map((c: any) => c.guid).sort()).toEqual([user.default_company_id, secondCompany.guid].sort());
    const foreign = await inProcess(['token', 'issue', '--email', email, '--company', randomUUID()]);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toMatch(/^error: company_id names companies this account cannot access/);
    const unknown = await inProcess(['token', 'issue', '--email', 'nobody@example.com']);
    expect(unknown.code).toBe(1);

    const me = await request(`${stack.authUrl}/users/me`, { headers: bearer(token) });
    expect(me.status, me.text).toBe(200);
    // `user create --json` and `company create --json` print the objects as the REST API shows them.
    expect(user).toEqual(me.body);
    const companies = await request(`${stack.authUrl}/companies`, { headers: bearer(all.access_token) });
    expect(companies.body.map((c: any) => c.name).sort()).toEqual(['Cli Co', 'Second Co']);
    const { owner_id: ownerId, ...secondAsRest } = secondCompany;
    expect(ownerId).toBe(user.guid);
    expect(companies.body.find((c: any) => c.guid === secondCompany.guid)).toEqual(secondAsRest);
    const defaultOnly = await request(`${stack.authUrl}/companies`, { headers: bearer(token) });
    expect(defaultOnly.body.map((c: any) => c.name)).toEqual(['Cli Co']);
    // The services' own password grant works for a CLI-made user.
    const grant = await request(`${stack.authUrl}/tokens`, { method: 'POST', json: { grant_type: 'password', username: email, password } });
    expect(grant.status).toBe(200);
  }, 180_000);

  it('client create prints a secret once that works with the client_credentials grant', async () => {
    const text = await inProcess(['client', 'create', '--email', email, '--name', 'shop']);
    expect(text.code, text.stderr).toBe(0);
    const clientId = /client_id:\s+(\S+)/.exec(text.stdout)?.[1];
    const clientSecret = /client_secret:\s+(\S+)/.exec(text.stdout)?.[1];
    expect(clientId).toMatch(/^[0-9a-f-]{36}$/);
    const grant = await request(`${stack.authUrl}/tokens`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    expect(grant.status, grant.text).toBe(200);
    const me = await request(`${stack.authUrl}/users/me`, { headers: bearer(grant.body.access_token) });
    expect(me.body.guid).toBe(user.guid);

    const json = await cliJson(['client', 'create', '--email', email, '--name', 'scanner']);
    expect(json).toMatchObject({ client_id: expect.any(String), client_secret: expect.any(String), name: 'scanner', user_id: user.guid });
    const unknown = await inProcess(['client', 'create', '--email', 'nobody@example.com', '--name', 'x']);
    expect(unknown.code).toBe(1);
  }, 180_000);

  it("sessions revoke ends every session of the user: its tokens are refused by the stack", async () => {
    // its own sessions to end (with the two below, five), whichever tests ran before
    for (let i = 0; i < 3; i++) expect((await inProcess(['token', 'issue', '--email', email])).code).toBe(0);
    const used = (await inProcess(['token', 'issue', '--email', email])).stdout.trim();
    const unused = (await inProcess(['token', 'issue', '--email', email])).stdout.trim();
    expect((await request(`${stack.authUrl}/users/me`, { headers: bearer(used) })).status).toBe(200);

    const revoked = await cliJson(['sessions', 'revoke', '--email', email]);
    expect(revoked.user_id).toBe(user.guid);
    expect(revoked.revoked).toBeGreaterThanOrEqual(5);
    const unusedAfter = await request(`${stack.authUrl}/users/me`, { headers: bearer(unused) });
    expect(unusedAfter.status).toBe(401);
    if (stack.backend === 'mysql') {
      // With Redis the revocation reaches the cache the running service reads, at once. (With the
      // in-process cache a running service may still accept a token it cached, for up to
      // SESSION_CACHE_TTL_SECONDS: see docs/operations.md.)
      expect((await request(`${stack.authUrl}/users/me`, { headers: bearer(used) })).status).toBe(401);
    }
    const text = await inProcess(['sessions', 'revoke', '--email', email]);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(`Revoked 0 session(s) of ${email}.\n`);
    const unknown = await inProcess(['sessions', 'revoke', '--email', 'nobody@example.com']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('error: no user with e-mail nobody@example.com\n');
  }, 180_000);
});

/** A stack on the CLI's databases and signing key (and, on MySQL, its Redis prefix). */
function stackOverrides(): Record<string, string> {
  const keys = ['DATA_DIR', 'AUTH_SIGNING_KEY', 'AUTH_RATE_LIMIT_SECRET', 'AUTH_DATABASE_URL', 'TICKET_DATABASE_URL', 'REDIS_URL', 'REDIS_KEY_PREFIX'];
  return Object.fromEntries(keys.filter((key) => cliEnv[key] !== undefined).map((key) => [key, cliEnv[key]!]));
}
