/**
 * The README's curl walk ("The API with curl") runs top to bottom as pasted (issue 13 item 4):
 * its shell blocks, with only BASE pointed at a test stack, run under bash with `set -e -o
 * pipefail`, and every HTTP answer before the final revocation check is a success (2xx, or
 * the 304 of the conditional read). Needs curl and jq, as the README says.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../support/stack.js';

const hasTools = ['curl', 'jq'].every((tool) => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`]);
    return true;
  } catch {
    return false;
  }
});

/** The README section's shell blocks, as one script. */
function readmeWalk(): string {
  const readme = readFileSync('README.md', 'utf8');
  const start = readme.indexOf('## The API with curl');
  const end = readme.indexOf('\n## ', start + 1);
  const blocks = [...readme.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks.join('\n');
}

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => stack?.stop());

it.skipIf(!hasTools)('runs as pasted: no command fails, every answer before the revocation check succeeds', async () => {
  const walk = readmeWalk();
  expect(walk).toContain('BASE=http://localhost:8080');
  // Each curl also reports its status on stderr; a -w of the README's own comes later and wins for its line.
  const script = [
    'set -e -o pipefail',
    "curl() { command curl -w '%{stderr}%{http_code} %{method} %{url_effective}\\n' \"$@\"; }",
    walk.replace('BASE=http://localhost:8080', `BASE=${stack.baseUrl}`),
  ].join('\n');
  const { stderr } = await promisify(execFile)('bash', ['-c', script], { timeout: 60_000, maxBuffer: 10 * 1024 * 1024 }).catch((err: { stdout: string; stderr: string }) => {
    throw new Error(`the README walk failed:\n${err.stderr}\n${err.stdout.slice(-2000)}`);
  });
  const answers = stderr.split('\n').filter((line) => /^\d{3} /.test(line));
  expect(answers.length).toBeGreaterThan(20);
  const last = answers.pop()!;
  expect(last).toMatch(/^401 GET .*\/auth\/users\/me$/);
  expect(answers.filter((line) => !/^(2\d\d|304) /.test(line))).toEqual([]);
});
