/**
 * The rule of docs/testing.md "What runs where", held: every test file is placed in exactly one
 * list of test/projects.ts, so a new file cannot skip MySQL without someone deciding that it
 * should; every listed file exists; and the projects of vitest.config.ts run what the lists say.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BACKEND_NEUTRAL_FILES, BOTH_BACKENDS_FILES, NODE_VERSION_FILES, SURFACE_FILES } from './projects.js';
import config from '../vitest.config.js';

const testFiles = (readdirSync('test', { recursive: true }) as string[])
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/${file.split('\\').join('/')}`)
  .sort();

const lists = { BOTH_BACKENDS_FILES, SURFACE_FILES, BACKEND_NEUTRAL_FILES };

describe('test/projects.ts places every test file', () => {
  it('every test file is in exactly one list', () => {
    const placed = (file: string) => Object.entries(lists).filter(([, list]) => list.includes(file)).map(([name]) => name);
    const unplaced = testFiles.filter((file) => placed(file).length === 0);
    expect(unplaced, 'files in none of the lists of test/projects.ts: place each (docs/testing.md, "What runs where")').toEqual([]);
    const twice = testFiles.filter((file) => placed(file).length > 1).map((file) => `${file}: ${placed(file).join(', ')}`);
    expect(twice, 'files in more than one list').toEqual([]);
  });

  it('every listed file exists, once', () => {
    for (const [name, list] of Object.entries({ ...lists, NODE_VERSION_FILES })) {
      expect(list.filter((file) => !testFiles.includes(file)), `${name}: no such test file`).toEqual([]);
      expect(new Set(list).size, `${name}: a file listed twice`).toBe(list.length);
    }
  });

  it('the mysql project runs exactly the files of both backends; the embedded one runs every file', () => {
    const projects = (config.test?.projects ?? []) as Array<{ test: { name: string; include: string[]; exclude?: string[] } }>;
    const embedded = projects.find((project) => project.test.name === 'embedded');
    expect(embedded?.test.include).toEqual(['test/**/*.test.ts']);
    expect(embedded?.test.exclude ?? []).toEqual([]);
    // The mysql project exists only with TEST_MYSQL_URL and TEST_REDIS_URL set; its list is the same either way.
    const mysql = projects.find((project) => project.test.name === 'mysql');
    if (mysql) expect([...mysql.test.include].sort()).toEqual([...BOTH_BACKENDS_FILES].sort());
  });
});
