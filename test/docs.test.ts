/**
 * The README is a start and docs/ the reference (issue 20 item 1): a short README with the two
 * commands, an index of docs/ that lists every page, links that lead somewhere, no machine's own
 * paths, and every dependency justified. Files only: the embedded project runs it, the mysql one
 * skips it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configKeys } from './ops/compose-file.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const docsPages = () => readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
const documents = () => ['README.md', ...docsPages().map((name) => `docs/${name}`)];

describe('README and docs/', () => {
  it('the README is a start: at most 150 lines, run and test in two commands, docker compose for the full stack', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(150);
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
    expect(readme).toContain('docker compose up');
    expect(read('.ci/run')).toMatch(/^npm test$/m); // CI runs the README's test command
    expect(readme).toContain('(docs/README.md)');
    expect(readme).toContain('(docs/dependencies.md)');
  });

  it('docs/README.md lists every page of docs/ with what it answers', () => {
    const index = read('docs/README.md');
    for (const page of docsPages().filter((name) => name !== 'README.md')) expect(index, page).toMatch(new RegExp(`\\| \\[${page.replace('.', '\\.')}\\]\\(${page.replace('.', '\\.')}\\) \\| \\S`));
  });

  it('every relative link of the README and docs/ leads to a file of the repository', () => {
    const broken: string[] = [];
    for (const file of documents()) {
      for (const [, target] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!) || target!.startsWith('#')) continue;
        const resolved = path.join(path.dirname(path.join(ROOT, file)), target!.split('#')[0]!);
        if (!existsSync(resolved)) broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('no document names a path of one machine', () => {
    const files = [...documents(), ...readdirSync(path.join(ROOT, 'examples')).map((name) => `examples/${name}`), '.env.example'];
    const found = files.flatMap((file) => [...read(file).matchAll(/(?<![\w.])\/(?:work|home|Users|root)\/[\w./-]*/g)].map((m) => `${file}: ${m[0]}`));
    expect(found).toEqual([]);
  });

  it('docs/configuration.md has a row for every setting of lib/config.ts, and the README\'s day-one rows are among them', () => {
    const rows = new Set([...read('docs/configuration.md').matchAll(/^\| `([A-Z][A-Z0-9_]*)`(?: \/ `([A-Z][A-Z0-9_]*)`)? \|/gm)].flatMap((m) => [m[1]!, m[2]].filter((name): name is string => Boolean(name))));
    expect(configKeys().filter((key) => !rows.has(key))).toEqual([]);
    const dayOne = [...read('README.md').matchAll(/^\| `([A-Z][A-Z0-9_]*)`(?: \/ `([A-Z][A-Z0-9_]*)`)? \|/gm)].flatMap((m) => [m[1]!, m[2]].filter((name): name is string => Boolean(name)));
    expect(dayOne.length).toBeGreaterThan(3);
    expect(dayOne.filter((key) => !rows.has(key))).toEqual([]);
  });

  it('docs/dependencies.md justifies every package of package.json', () => {
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    const justified = read('docs/dependencies.md');
    const names = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)].filter((name) => !name.startsWith('@types/'));
    expect(names.filter((name) => !justified.includes(`\`${name}\``))).toEqual([]);
    expect(justified).toContain('`@types/*`');
  });
});
