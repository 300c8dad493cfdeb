import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, migrationSource, type Knex } from '../../lib/db.js';
import { nextUpdatedAt } from '../../services/ticket/catalogue/updated-at.js';
import { EventStore } from '../../services/ticket/store/event-store.js';
import { eventChange } from '../../services/ticket/catalogue/catalogue-changes.js';
import { ticketMigrations } from '../../services/ticket/store/migrations/migrations.js';
import { replaceDatabase, testBackend, withMysql } from '../support/stack.js';

/**
 * The updated_at rule of docs/ticket-api.md "Responses", as the UPDATE statement applies it
 * on the backend of this run, with a controlled clock: every case of the rule, and the same
 * results as the reference nextUpdatedAt.
 */
const COMPANY = randomUUID();
let db: Knex;
let store: EventStore;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const config = { migrationSource: migrationSource(ticketMigrations), tableName: 'knex_migrations' };
  const dir = mkdtempSync(path.join(tmpdir(), 'updated-at-'));
  if (testBackend() === 'mysql') {
    const url = process.env.TEST_MYSQL_URL!;
    const name = `u${randomBytes(5).toString('hex')}`;
    await withMysql(url, (root) => root.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`));
    db = createDatabase({ url: replaceDatabase(url, name), sqliteFile: '', migrations: config });
    cleanup = async () => {
      await db.destroy();
      await withMysql(url, (root) => root.raw(`DROP DATABASE IF EXISTS \`${name}\``));
      rmSync(dir, { recursive: true, force: true });
    };
  } else {
    db = createDatabase({ sqliteFile: path.join(dir, 'u.sqlite'), migrations: config });
    cleanup = async () => {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    };
  }
  await db.migrate.latest();
  store = new EventStore(db);
});

afterAll(async () => {
  await cleanup?.();
});

const at = (iso: string) => new Date(iso);

/** An event whose updated_at is `previous`, updated once at `now`: the stored updated_at after. */
async function updateAt(previous: Date, now: Date): Promise<Date> {
  const guid = randomUUID();
  await store.insert({ guid, company_id: COMPANY, name: 'e', description: null, start: null, end: null, currency: 'EUR', created_at: previous, updated_at: previous, deleted_at: null, version: 1 });
  const updated = await store.update([COMPANY], guid, { description: 'changed' }, { now, change: (e) => eventChange('event.updated', e) });
  expect(updated?.version).toBe(2);
  return updated!.updated_at;
}

describe('updated_at in the UPDATE statement', () => {
  const CASES: Array<[string, string, string, string]> = [
    ['previous in an earlier second: the current time', '2030-05-05T10:00:00.900Z', '2030-05-05T10:00:01.100Z', '2030-05-05T10:00:01.100Z'],
    ['previous long ago: the current time', '2020-01-01T00:00:00.000Z', '2030-05-05T10:00:07.250Z', '2030-05-05T10:00:07.250Z'],
    ['previous earlier in the current second: previous + 1 s', '2030-05-05T10:00:00.200Z', '2030-05-05T10:00:00.700Z', '2030-05-05T10:00:01.200Z'],
    ['previous at the start of the current second: previous + 1 s', '2030-05-05T10:00:00.000Z', '2030-05-05T10:00:00.999Z', '2030-05-05T10:00:01.000Z'],
    ['previous equal to now: previous + 1 s', '2030-05-05T10:00:00.500Z', '2030-05-05T10:00:00.500Z', '2030-05-05T10:00:01.500Z'],
    ['previous later in the current second (a concurrent update): now + 1 s', '2030-05-05T10:00:00.800Z', '2030-05-05T10:00:00.300Z', '2030-05-05T10:00:01.300Z'],
    ['previous already a second ahead: unchanged', '2030-05-05T10:00:01.200Z', '2030-05-05T10:00:00.700Z', '2030-05-05T10:00:01.200Z'],
    ['previous at the start of the next second: unchanged', '2030-05-05T10:00:01.000Z', '2030-05-05T10:00:00.999Z', '2030-05-05T10:00:01.000Z'],
    ['previous far ahead (drifted by the old rule): unchanged until the clock catches up', '2030-05-05T10:03:00.000Z', '2030-05-05T10:00:00.500Z', '2030-05-05T10:03:00.000Z'],
    ['across a day and year boundary', '2030-12-31T23:59:59.400Z', '2030-12-31T23:59:59.600Z', '2031-01-01T00:00:00.400Z'],
  ];
  for (const [label, previous, now, expected] of CASES) {
    it(label, async () => {
      expect(nextUpdatedAt(at(previous), at(now)).toISOString()).toBe(expected);
      expect((await updateAt(at(previous), at(now))).toISOString()).toBe(expected);
    });
  }

  it('a burst of updates within one second moves it once, a second ahead at most, and on with the clock', async () => {
    const guid = randomUUID();
    const created = at('2030-05-05T10:00:00.100Z');
    await store.insert({ guid, company_id: COMPANY, name: 'e', description: null, start: null, end: null, currency: 'EUR', created_at: created, updated_at: created, deleted_at: null, version: 1 });
    const seen: string[] = [];
    for (let ms = 150; ms < 1000; ms += 50) {
      const now = at(`2030-05-05T10:00:00.${String(ms).padStart(3, '0')}Z`);
      const updated = await store.update([COMPANY], guid, { description: `at ${ms}` }, { now, change: (e) => eventChange('event.updated', e) });
      seen.push(updated!.updated_at.toISOString());
    }
    expect(new Set(seen)).toEqual(new Set(['2030-05-05T10:00:01.100Z']));
    const later = await store.update([COMPANY], guid, { description: 'next second' }, { now: at('2030-05-05T10:00:01.500Z'), change: (e) => eventChange('event.updated', e) });
    expect(later!.updated_at.toISOString()).toBe('2030-05-05T10:00:02.100Z');
    const after = await store.update([COMPANY], guid, { description: 'two seconds on' }, { now: at('2030-05-05T10:00:03.000Z'), change: (e) => eventChange('event.updated', e) });
    expect(after!.updated_at.toISOString()).toBe('2030-05-05T10:00:03.000Z');
  });
});
