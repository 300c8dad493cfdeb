/**
 * No import circle (docs/architecture.md "The ticket service's map"): the files of
 * services/ticket and lib/ import one another in one direction only, type-only imports
 * included, and nothing under lib/fields imports a table above it. Read from the sources'
 * import statements.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'/g;

function sourcesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)))
    .filter((file) => !file.startsWith(path.join('lib', 'gen')));
}

/** Each file's relative imports (resolved to repository paths), type-only ones included. */
function importsOf(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((m) => path.normalize(path.join(path.dirname(file), m[1]!)).replace(/\.js$/, '.ts'));
    graph.set(file, targets);
  }
  return graph;
}

/** The circles of a graph: its strongly connected components of more than one file (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('import direction', () => {
  it('services/ticket and lib have no import circle, type-only imports included', () => {
    const graph = importsOf([...sourcesUnder('services/ticket'), ...sourcesUnder('lib')]);
    expect(graph.size).toBeGreaterThan(50);
    expect(circles(graph)).toEqual([]);
  });

  it('finds a circle where there is one (the check can fail)', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(circles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('the field tables (lib/fields) import no table or rule above them', () => {
    const graph = importsOf(sourcesUnder('lib/fields'));
    const upward = [...graph].flatMap(([file, targets]) => targets.filter((target) => !target.startsWith(path.join('lib', 'fields'))).map((target) => `${file} -> ${target}`));
    // Plain helpers they build on (the database's value forms, the timestamp format) are not tables.
    expect(upward.filter((edge) => !/ -> lib\/(db|time)\.ts$/.test(edge))).toEqual([]);
  });
});
