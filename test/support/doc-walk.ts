import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The walk a new user pastes (issue 20 item 2): the README's shell blocks from its first sale on
 * (curl, then the gRPC example), then the blocks of docs/ that continue it, each marked with
 * `<!-- walk N -->` right above its fence and run in the order of N.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const README_WALK_HEADING = '## A first sale with curl';
const DOCS_WALK_BLOCK = /<!-- walk (\d+) -->\n```sh\n([\s\S]*?)```/g;

const shellBlocks = (text: string) => [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);

/** The README's walk: every shell block from its first sale to the end. */
export function readmeWalk(): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(README_WALK_HEADING);
  if (start < 0) throw new Error(`README.md has no "${README_WALK_HEADING}" section`);
  return shellBlocks(readme.slice(start)).join('\n');
}

/** The marked blocks of docs/*.md, in walk order, with the page each comes from. */
export function docsWalkBlocks(): Array<{ page: string; order: number; script: string }> {
  const dir = path.join(ROOT, 'docs');
  const blocks = readdirSync(dir)
    .filter((name) => name.endsWith('.md'))
    .flatMap((name) => [...readFileSync(path.join(dir, name), 'utf8').matchAll(DOCS_WALK_BLOCK)].map((m) => ({ page: `docs/${name}`, order: Number(m[1]), script: m[2]! })));
  return blocks.sort((a, b) => a.order - b.order);
}

/** The whole walk as one script: the README's, then its continuation in docs/. */
export function fullWalk(): string {
  return [readmeWalk(), ...docsWalkBlocks().map((block) => `# ${block.page}\n${block.script}`)].join('\n');
}
