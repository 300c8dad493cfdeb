/**
 * The walk a new user follows runs as pasted, twice in a row against one stack (issue 13 item 4,
 * issue 20 item 2): the README's first sale with curl, its gRPC example, then the docs/ blocks
 * that continue it (test/support/doc-walk.ts), with only BASE pointed at a test stack, under bash
 * with `set -e -o pipefail`. Every `jq -r` runs as `jq -re`, so a `null` id fails at its own
 * line; every HTTP answer before the final revocation check is a success (2xx, or the 304 of the
 * conditional read). A third run keeps the second run's address, as a user who puts their own in
 * does: only the sign-up may then fail (409), so a fixed Idempotency-Key cannot hide behind a new
 * account. The runs after the first only prove that it runs again: they run on the embedded
 * backend alone (test/support/reruns.ts). Needs curl and jq, as the README says.
 */
import { randomUUID } from 'node:crypto';
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '../support/api.js';
import { docsWalkBlocks, fullWalk } from '../support/doc-walk.js';
import { rerunRounds } from '../support/reruns.js';
import type { TestStack } from '../support/stack.js';
import { startSuite, type SuiteWithEvent } from '../support/suite.js';

const hasTools = ['curl', 'jq'].every((tool) => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`]);
    return true;
  } catch {
    return false;
  }
});

const EXAMPLE = 'examples/grpc-first-sale.ts';
const CART_EXAMPLE = 'examples/grpc-cart.ts';
/** The README's line that makes the sign-up address. */
const EMAIL_LINE = /^EMAIL=.*$/m;
const run = promisify(execFile);

let suite: SuiteWithEvent;
let stack: TestStack;
beforeAll(async () => {
  suite = await startSuite({ event: { name: 'Walk' } });
  stack = suite.stack;
});
afterAll(async () => stack?.stop());

/** Runs the walk once; returns each curl's `status method url`, in order. */
async function runWalk(walk: string, email?: string): Promise<string[]> {
  let pasted = walk.replace('BASE=http://localhost:8080', `BASE=${stack.baseUrl}`).replaceAll('jq -r ', 'jq -re ');
  if (email) {
    expect(pasted).toMatch(EMAIL_LINE);
    pasted = pasted.replace(EMAIL_LINE, `EMAIL=${email}`);
  }
  // Each curl also reports its status on stderr; a -w of the walk's own comes later and wins for its line.
  const script = [
    'set -e -o pipefail',
    "curl() { command curl -w '%{stderr}%{http_code} %{method} %{url_effective}\\n' \"$@\"; }",
    pasted,
  ].join('\n');
  const env = { ...process.env, TICKET_GRPC_ADDRESS: stack.ticketGrpcAddress };
  const { stderr } = await run('bash', ['-c', script], { env, timeout: 180_000, maxBuffer: 10 * 1024 * 1024 }).catch((err: { stdout: string; stderr: string }) => {
    throw new Error(`the walk failed:\n${err.stderr}\n${err.stdout.slice(-2000)}`);
  });
  return stderr.split('\n').filter((line) => /^\d{3} /.test(line));
}

it.skipIf(!hasTools)('runs as pasted, then twice in a row more on the embedded backend: no command fails, no id is null, every answer before the revocation check succeeds; again with the same address, only the sign-up fails', async () => {
  const walk = fullWalk();
  expect(walk).toContain('BASE=http://localhost:8080');
  expect(walk).toContain('jq -r ');
  expect(walk).toContain(`npx tsx ${EXAMPLE}`);
  expect(walk).toContain(`npx tsx ${CART_EXAMPLE}`);
  expect(docsWalkBlocks().length).toBeGreaterThan(3);
  const email = `walk-${randomUUID()}@example.com`;
  for (const [round, address] of rerunRounds([[1, undefined], [2, email], [3, email]] as const)) {
    const answers = await runWalk(walk, address);
    expect(answers.length, `round ${round}`).toBeGreaterThan(30);
    const last = answers.pop()!;
    expect(last, `round ${round}`).toMatch(/^401 GET .*\/auth\/users\/me$/);
    const refused = answers.filter((line) => !/^(2\d\d|304) /.test(line));
    expect(refused, `round ${round}`).toEqual(round === 3 ? [expect.stringMatching(/^409 POST .*\/auth\/users$/)] : []);
  }
}, 600_000); // three walks of ~45 requests and a gRPC run each; slow only on a busy machine

/** Runs an example against the suite's stack: its exit code and output. */
const runExample = (file: string, env: Record<string, string>) =>
  run(process.execPath, ['--import', 'tsx', file], { env: { ...process.env, TICKET_GRPC_ADDRESS: stack.ticketGrpcAddress, ...env }, timeout: 120_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );

describe('the gRPC example', () => {
  const exampleFile = () => readFileSync(EXAMPLE, 'utf8');
  const example = (env: Record<string, string>) => runExample(EXAMPLE, env);

  it('shows in the README only lines of the runnable file', () => {
    const readme = readFileSync('README.md', 'utf8');
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThan(0);
    const lines = blocks.flatMap((block) => block.split('\n').map((line) => line.trim()).filter(Boolean));
    expect(lines.filter((line) => !exampleFile().includes(line))).toEqual([]);
  });

  it('generates its request_id: it sells again on a second run (on the embedded backend)', async () => {
    const ticket = await createTicket(suite.who, suite.eventGuid, { name: 'Twice', vat_percentage: 21, available_stock: 4 });
    for (const round of rerunRounds([1, 2])) {
      const result = await example({ TOKEN: suite.token, EVENT: suite.eventGuid, TICKET: ticket.guid });
      expect(result, `round ${round}`).toMatchObject({ code: 0 });
      expect(result.stdout).toContain('RESERVATION_STATE_CONFIRMED');
      expect(result.stdout).toMatch(/scanned \S+ at \d{4}-/);
    }
  }, 240_000);

  it('prints what a shop needs on a refusal: the resource not found, the reason of a refused move, a bad token', async () => {
    const unknown = randomUUID();
    const one = await createTicket(suite.who, suite.eventGuid, { name: 'Last one', vat_percentage: 21, available_stock: 1 });
    const [missing, short, signedOut] = await Promise.all([
      example({ TOKEN: suite.token, EVENT: suite.eventGuid, TICKET: unknown }),
      example({ TOKEN: suite.token, EVENT: suite.eventGuid, TICKET: one.guid }),
      example({ TOKEN: 'not-a-token', EVENT: suite.eventGuid, TICKET: one.guid }),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('NOT_FOUND: Ticket not found.');
    expect(missing.stderr).toContain(`ticketing.v1.Ticket ${unknown}`);
    expect(missing.stderr).not.toContain('undefined');
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/^FAILED_PRECONDITION: .+\(reason insufficient_stock/m);
    expect(signedOut.code).toBe(1);
    expect(signedOut.stderr).toMatch(/^UNAUTHENTICATED: .+\(reason invalid_token\): get a new token/m);
  }, 240_000);
});

describe('the gRPC cart example', () => {
  const cart = (env: Record<string, string>) => runExample(CART_EXAMPLE, env);

  it('sells an order of two tickets, confirms and reads it; again on a second run (on the embedded backend)', async () => {
    const adult = await createTicket(suite.who, suite.eventGuid, { name: 'Cart adult', vat_percentage: 21, available_stock: 4 });
    const child = await createTicket(suite.who, suite.eventGuid, { name: 'Cart child', vat_percentage: 9, available_stock: 4 });
    for (const round of rerunRounds([1, 2])) {
      const result = await cart({ TOKEN: suite.token, EVENT: suite.eventGuid, TICKETS: `${adult.guid} ${child.guid}` });
      expect(result, `round ${round}`).toMatchObject({ code: 0 });
      expect(result.stdout).toContain('reserved 2 lines');
      expect(result.stdout).toContain('RESERVATION_STATE_CONFIRMED');
      for (const ticket of [adult, child]) expect(result.stdout).toMatch(new RegExp(`^  ${ticket.guid} \\S{16}$`, 'm'));
    }
  }, 240_000);

  it('prints a refused line with its ticket_id', async () => {
    const plenty = await createTicket(suite.who, suite.eventGuid, { name: 'Cart plenty', vat_percentage: 21, available_stock: 4 });
    const none = await createTicket(suite.who, suite.eventGuid, { name: 'Cart none', vat_percentage: 21, available_stock: 0 });
    const short = await cart({ TOKEN: suite.token, EVENT: suite.eventGuid, TICKETS: `${plenty.guid} ${none.guid}` });
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/^FAILED_PRECONDITION: .+\(reason insufficient_stock/m);
    expect(short.stderr).toContain(`"ticket_id":"${none.guid}"`);
  }, 240_000);
});
