/**
 * Issue 32, item 14: the docs stand on their own. A person who clones the repository has
 * neither the project's contract files nor the workplace's shared folder, so the README and
 * docs/ name no file outside the repository.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pages = ['README.md', ...readdirSync('docs').filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

describe('the docs stand alone', () => {
  it.each(pages)('%s names no file outside the repository', (page) => {
    const text = readFileSync(page, 'utf8');
    const outside = text.split('\n').filter((line) => /PRODUCT\.md|\.\.\/shared|design\/ARCHITECTURE\.md|spec\/ticketing-interface/.test(line));
    expect(outside).toEqual([]);
  });
});
