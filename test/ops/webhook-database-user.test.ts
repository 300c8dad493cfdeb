/**
 * Issue 32, item 10: the webhook worker logs in to the database as a user of its own
 * (WEBHOOK_DATABASE_URL), which the migration run makes with exactly the rights the worker's SQL
 * needs on the outbox tables (services/webhooks/delivery-store.ts WORKER_TABLE_RIGHTS): it
 * delivers as before, and it can read or change nothing else of the ticket schema, stock and
 * sales above all. MySQL only: SQLite has no users.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.js';
import { createDatabase } from '../../lib/db.js';
import { runMigrations } from '../../services/migrate.js';
import { createEvent } from '../support/api.js';
import { bearer, request, signUpAndLogin } from '../support/http.js';
import { replaceDatabase, withMysql } from '../support/resources.js';
import { startTestStack, testBackend, type TestStack } from '../support/stack.js';
import { startReceiver, type TestReceiver } from '../webhooks/receiver.js';

describe.runIf(testBackend() === 'mysql')('the webhook worker database user', () => {
  const rootUrl = process.env.TEST_MYSQL_URL!;
  const id = `wu${randomBytes(4).toString('hex')}`;
  const names = { authDb: `${id}_auth`, ticketDb: `${id}_tickets`, authUser: `${id}_a`, ticketUser: `${id}_t`, workerUser: `${id}_w` };
  const password = () => randomBytes(16).toString('hex');
  const urlOf = (user: string, pass: string, database: string) => {
    const url = new URL(replaceDatabase(rootUrl, database));
    url.username = user;
    url.password = pass;
    return url.toString();
  };
  const urls = {
    auth: urlOf(names.authUser, password(), names.authDb),
    ticket: urlOf(names.ticketUser, password(), names.ticketDb),
    worker: urlOf(names.workerUser, password(), names.ticketDb),
  };
  let stack: TestStack | undefined;
  let receiver: TestReceiver | undefined;

  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
    await withMysql(rootUrl, async (db) => {
      for (const user of [names.authUser, names.ticketUser, names.workerUser]) await db.raw("DROP USER IF EXISTS ?@'%'", [user]);
      for (const database of [names.authDb, names.ticketDb]) await db.raw('DROP DATABASE IF EXISTS ??', [database]);
    });
  });

  /** What MySQL answers `sql` as the worker's user: 'ok' or the error code. */
  const asWorker = async (sql: string): Promise<string> => {
    const db = createDatabase({ url: urls.worker, sqliteFile: ':memory:', migrations: {} });
    try {
      await db.raw(sql);
      return 'ok';
    } catch (err) {
      return (err as { code?: string }).code ?? String(err);
    } finally {
      await db.destroy();
    }
  };

  it('the migration run makes it with the outbox tables only; twice, as on every start', async () => {
    for (let round = 0; round < 2; round++) {
      await runMigrations(loadConfig({ AUTH_DATABASE_URL: urls.auth, TICKET_DATABASE_URL: urls.ticket, WEBHOOK_DATABASE_URL: urls.worker, DATABASE_ADMIN_URL: replaceDatabase(rootUrl, 'mysql') }, 'migrate'));
    }
    expect(await asWorker('SELECT id FROM webhook_events LIMIT 1')).toBe('ok');
    expect(await asWorker('SELECT guid, url, secret FROM webhook_endpoints LIMIT 1')).toBe('ok');
    expect(await asWorker('SELECT id FROM webhook_deliveries LIMIT 1')).toBe('ok');
    // Stock, sales, events: neither read nor written.
    for (const sql of ['SELECT * FROM tickets LIMIT 1', 'SELECT * FROM reservations LIMIT 1', 'SELECT * FROM events LIMIT 1', 'UPDATE tickets SET available_stock = 0', 'DELETE FROM reservations']) {
      expect(await asWorker(sql), sql).toMatch(/ACCESS_DENIED/);
    }
    // Nor an endpoint changed (its URL or secret), nor the schema.
    expect(await asWorker("UPDATE webhook_endpoints SET url = 'http://x'")).toMatch(/ACCESS_DENIED/);
    expect(await asWorker('CREATE TABLE stolen (id INT)')).toMatch(/ACCESS_DENIED/);
  });

  it('a worker logged in as that user delivers an event', async () => {
    receiver = await startReceiver();
    stack = await startTestStack({ AUTH_DATABASE_URL: urls.auth, TICKET_DATABASE_URL: urls.ticket, WEBHOOK_DATABASE_URL: urls.worker, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    const account = await signUpAndLogin(stack);
    const created = await request(`${stack.baseUrl}/webhooks`, { method: 'POST', headers: bearer(account.accessToken), json: { url: receiver.url, events: ['event.created'] } });
    expect(created.status, created.text).toBe(201);
    receiver.secret = created.body.secret;
    await createEvent({ stack, token: account.accessToken }, { name: 'Delivered as the worker user' });
    await receiver.waitFor((received) => received.some((r) => r.body.type === 'event.created'), 20_000);
  }, 60_000);

  it('refuses a worker URL on another database than the ticket service\'s', async () => {
    const config = loadConfig({ AUTH_DATABASE_URL: urls.auth, TICKET_DATABASE_URL: urls.ticket, WEBHOOK_DATABASE_URL: urls.worker.replace(names.ticketDb, names.authDb), DATABASE_ADMIN_URL: replaceDatabase(rootUrl, 'mysql') }, 'migrate');
    await expect(runMigrations(config)).rejects.toThrow(/WEBHOOK_DATABASE_URL: must name the ticket service's database/);
  });
});
