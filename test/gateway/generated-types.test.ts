/**
 * Generated client types compile the README's own examples (issue 13 item 2): types made by
 * openapi-typescript (with its default options) from the live /openapi.json, and every JSON
 * body of the README's curl walk (and of the docs blocks that continue it) as a typed object of
 * its operation, checked by `tsc`.
 * Required means required at creation; a default is a default, not "always sent". The
 * document is the same on both backends, so the mysql project skips this file.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullWalk } from '../support/doc-walk.js';
import { request } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/stack.js';

const tsc = path.join(path.dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');

interface ReadmeBody {
  method: string;
  template: string;
  json: string;
  line: string;
}

/**
 * The JSON bodies (`-d '{...}'`) of the walk's curl commands with their operation: `$BASE`
 * and `$AUTH` are the gateway and the auth prefix, a `$VARIABLE` segment is a path parameter.
 */
function readmeJsonBodies(readme: string, authPrefix: string, templates: string[]): ReadmeBody[] {
  const commands = readme.replace(/\\\n\s*/g, ' ').split('\n').filter((line) => /(^|\$\()curl /.test(line.trim()));
  const bodies: ReadmeBody[] = [];
  for (const line of commands) {
    // A shell value spliced into the JSON ('"$EMAIL"') stands for a string.
    const json = /-d '(\{.*?\})'/.exec(line)?.[1]?.replace(/'"\$(\w+)"'/g, '$1');
    const url = /"?\$(BASE|AUTH)(\/[^\s"?]*)/.exec(line);
    if (!json || !url) continue;
    const method = /-X (\w+)/.exec(line)?.[1] ?? 'POST';
    const segments = `${url[1] === 'AUTH' ? authPrefix : ''}${url[2]}`.split('/');
    const template = templates.find((candidate) => {
      const parts = candidate.split('/');
      return parts.length === segments.length && parts.every((part, i) => part === segments[i] || (/^\{\w+\}$/.test(part) && segments[i]!.startsWith('$')));
    });
    if (!template) throw new Error(`no documented path for the README's ${line}`);
    bodies.push({ method: method.toLowerCase(), template, json, line });
  }
  return bodies;
}

describe('types generated from /openapi.json (the document does not depend on the backend)', () => {
  let stack: TestStack;
  let dir: string;
  beforeAll(async () => {
    stack = await startTestStack();
    dir = mkdtempSync(path.join(tmpdir(), 'generated-types-'));
  });
  afterAll(async () => {
    await stack?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('compile the README\'s JSON bodies; creation requires only what creation requires; event statuses are the event\'s', async () => {
    const document = (await request(`${stack.baseUrl}/openapi.json`)).body;
    writeFileSync(path.join(dir, 'api.ts'), astToString(await openapiTS(document)));
    const bodies = readmeJsonBodies(fullWalk(), stack.authUrl.slice(stack.baseUrl.length), Object.keys(document.paths));
    const operations = bodies.map((body) => `${body.method.toUpperCase()} ${body.template}`);
    expect(operations).toEqual(expect.arrayContaining(['POST /auth/users', 'POST /event', 'POST /event/{eventGuid}/ticket', 'PUT /ticket/{guid}']));

    const examples = [
      "import type { paths } from './api.js';",
      '/** The JSON request body of an operation, as a client sends it. */',
      "type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;",
      "type Event = paths['/event/{guid}']['get']['responses'][200]['content']['application/json'];",
      ...bodies.map((body, i) => `// ${body.line.trim()}\nexport const readme${i}: Body<'${body.template}', '${body.method}'> = ${body.json};`),
      "export const event: Body<'/event', 'post'> = { name: 'Summer Festival' };",
      "export const ticket: Body<'/event/{eventGuid}/ticket', 'post'> = { name: 'Early bird', vat_percentage: 21 };",
      "export const rename: Body<'/ticket/{guid}', 'put'> = { name: 'Regular' };",
      "export const eventRename: Body<'/event/{guid}', 'put'> = { name: 'Summer Festival 2027' };",
      '// @ts-expect-error name is required at creation',
      "export const nameless: Body<'/event/{eventGuid}/ticket', 'post'> = { vat_percentage: 21 };",
      '// @ts-expect-error vat_percentage is required at creation',
      "export const untaxed: Body<'/event/{eventGuid}/ticket', 'post'> = { name: 'x' };",
      "export const normal: Event['status'] = 'normal';",
      '// @ts-expect-error a ticket status is not an event status',
      "export const soldOut: Event['status'] = 'sold_out';",
    ];
    writeFileSync(path.join(dir, 'examples.ts'), `${examples.join('\n')}\n`);
    const compilerOptions = { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', types: [], skipLibCheck: true };
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['examples.ts'] }));
    const result = await promisify(execFile)(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json')], { timeout: 60_000 }).then(
      () => '',
      (err: { stdout?: string; message: string }) => err.stdout || err.message,
    );
    expect(result, result).toBe('');
  }, 90_000);
});
