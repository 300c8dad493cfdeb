/**
 * The classifier of lib/dependency-down.ts over the errors mysql2, knex and better-sqlite3
 * really produce: each is provoked for real (a closed port, a server that hangs up, answers
 * "Too many connections" or never answers, a connection cut mid-query or mid-transaction, a
 * locked SQLite file), never written by hand. Errors that are bugs or the caller's fault
 * (syntax, constraint violations, programming errors) must stay internal errors.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import knexFactory, { type Knex } from 'knex';
import mysql from 'mysql2';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Knex as DbKnex } from '../../lib/db.js';
import { dependencyFailure, isDependencyDown } from '../../lib/dependency-down.js';
import { freePort } from '../support/redis-server.js';
import { createTestDatabases } from '../support/resources.js';
import { TcpProxy } from '../support/tcp-proxy.js';

/** The error a promise rejects with (fails the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

/** A loopback TCP server that treats every connection with `onConnection` (a fake MySQL server). */
async function fakeServer(onConnection: (socket: Socket) => void): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A MySQL ERR packet (sequence 0), as a server sends it instead of its greeting. */
function errPacket(errno: number, sqlState: string, message: string): Buffer {
  const payload = Buffer.concat([Buffer.from([0xff, errno & 0xff, errno >> 8]), Buffer.from(`#${sqlState}${message}`)]);
  const header = Buffer.from([payload.length & 0xff, (payload.length >> 8) & 0xff, payload.length >> 16, 0]);
  return Buffer.concat([header, payload]);
}

function mysqlQuery(port: number, options: { connectTimeout?: number } = {}): Promise<unknown> {
  const connection = mysql.createConnection({ host: '127.0.0.1', port, user: 'nobody', connectTimeout: options.connectTimeout ?? 5000 });
  connection.on('error', () => undefined);
  return rejection(connection.promise().query('select 1')).finally(() => connection.destroy());
}

function mysqlKnex(port: number, settings: { connectTimeout?: number; acquireMs?: number } = {}): Knex {
  return knexFactory({
    client: 'mysql2',
    connection: { host: '127.0.0.1', port, user: 'nobody', connectTimeout: settings.connectTimeout ?? 5000 },
    pool: { min: 0, max: 1 },
    acquireConnectionTimeout: settings.acquireMs ?? 5000,
    log: { warn: () => undefined, error: () => undefined, debug: () => undefined, deprecate: () => undefined },
  });
}

describe('the dependency classifier: mysql2 and knex without a server that answers', () => {
  it('connection refused (nothing listens): mysql2 and knex', async () => {
    const port = await freePort();
    const raw = await mysqlQuery(port);
    expect(raw).toMatchObject({ code: 'ECONNREFUSED', fatal: true });
    expect(dependencyFailure(raw)).toBe('ECONNREFUSED');
    const db = mysqlKnex(port);
    try {
      expect(isDependencyDown(await rejection(db.raw('select 1')))).toBe(true);
    } finally {
      await db.destroy();
    }
  });

  it('the server hangs up at once: PROTOCOL_CONNECTION_LOST', async () => {
    const server = await fakeServer((socket) => socket.destroy());
    try {
      const err = await mysqlQuery(server.port);
      expect(err).toMatchObject({ fatal: true });
      expect(isDependencyDown(err)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it.each([
    [1040, '08004', 'Too many connections'],
    [1203, '42000', "User ticketing already has more than 'max_user_connections' active connections"],
    [1053, '08S01', 'Server shutdown in progress'],
    [1927, '70100', 'Connection was killed'],
    [2006, 'HY000', 'MySQL server has gone away'],
  ])('the server answers errno %i instead of its greeting (%s %s): mysql2 and knex', async (errno, sqlState, message) => {
    const server = await fakeServer((socket) => socket.end(errPacket(errno, sqlState, message)));
    const db = mysqlKnex(server.port);
    try {
      const raw = await mysqlQuery(server.port);
      expect(raw).toMatchObject({ errno, sqlState, message });
      expect(isDependencyDown(raw)).toBe(true);
      expect(isDependencyDown(await rejection(db.raw('select 1')))).toBe(true);
    } finally {
      await db.destroy();
      await server.close();
    }
  });

  it('the server refusing our credentials at connect (ER_ACCESS_DENIED_ERROR): the database is unusable, not the request wrong', async () => {
    const server = await fakeServer((socket) => socket.end(errPacket(1045, '28000', "Access denied for user 'nobody'")));
    try {
      const err = await mysqlQuery(server.port);
      expect(err).toMatchObject({ code: 'ER_ACCESS_DENIED_ERROR', errno: 1045 });
      expect(isDependencyDown(err)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('a server that never answers: mysql2 connect timeout (ETIMEDOUT), knex acquire timeout (KnexTimeoutError)', async () => {
    const server = await fakeServer(() => undefined);
    const db = mysqlKnex(server.port, { connectTimeout: 2000, acquireMs: 300 });
    try {
      const raw = await mysqlQuery(server.port, { connectTimeout: 300 });
      expect(raw).toMatchObject({ code: 'ETIMEDOUT' });
      expect(isDependencyDown(raw)).toBe(true);
      const pooled = await rejection(db.raw('select 1'));
      expect(pooled).toMatchObject({ name: 'KnexTimeoutError' });
      expect(dependencyFailure(pooled)).toBe('knex timeout');
    } finally {
      await db.destroy();
      await server.close();
    }
  });

  it('a pool that was closed (a call that outlived shutdown)', async () => {
    const db = mysqlKnex(await freePort());
    await db.destroy();
    expect(isDependencyDown(await rejection(db.raw('select 1')))).toBe(true);
  });
});

describe('the dependency classifier: SQLite (better-sqlite3 through knex)', () => {
  let dir: string;
  let file: string;
  let db: DbKnex;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'dependency-down-'));
    file = path.join(dir, 'test.sqlite');
    db = createDatabase({ sqliteFile: file, migrations: {} });
    await db.schema.createTable('items', (table) => table.string('id').primary());
  });

  afterAll(async () => {
    await db?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a database locked by another writer: SQLITE_BUSY', async () => {
    const other = new Database(file);
    const impatient = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: file },
      useNullAsDefault: true,
      pool: { min: 1, max: 1, afterCreate: (conn: Database.Database, done: (err: Error | null, conn: unknown) => void) => done(null, (conn.pragma('busy_timeout = 0'), conn)) },
    });
    try {
      other.exec('BEGIN IMMEDIATE');
      const err = await rejection(impatient('items').insert({ id: 'a' }));
      expect(err).toMatchObject({ code: 'SQLITE_BUSY' });
      expect(dependencyFailure(err)).toBe('SQLITE_BUSY');
    } finally {
      other.exec('ROLLBACK');
      other.close();
      await impatient.destroy();
    }
  });

  it('is not fooled by errors that are bugs or the caller’s: constraint violation, syntax error, TypeError', async () => {
    await db('items').insert({ id: 'dup' });
    const unique = await rejection(db('items').insert({ id: 'dup' }));
    expect(unique).toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    expect(isDependencyDown(unique)).toBe(false);
    const syntax = await rejection(db.raw('selec 1'));
    expect(isDependencyDown(syntax)).toBe(false);
    expect(isDependencyDown(await rejection(Promise.resolve().then(() => (undefined as unknown as { x: number }).x)))).toBe(false);
    expect(isDependencyDown(new Error('Internal error.'))).toBe(false);
    expect(isDependencyDown(undefined)).toBe(false);
  });
});

describe('the dependency classifier: Redis (node-redis)', () => {
  it('a client that is closed or cannot connect', async () => {
    const client = createClient({ url: `redis://127.0.0.1:${await freePort()}`, socket: { reconnectStrategy: false, connectTimeout: 500 } });
    client.on('error', () => undefined);
    const closed = await rejection(client.get('key'));
    expect(isDependencyDown(closed)).toBe(true);
    const refused = await rejection(client.connect());
    expect(isDependencyDown(refused)).toBe(true);
  });
});

/** Against the real MySQL/MariaDB server, reached through a TCP proxy the test cuts. */
describe.runIf(Boolean(process.env.TEST_MYSQL_URL))('the dependency classifier: mysql2 and knex on a real server', () => {
  let proxy: TcpProxy;
  let databases: Awaited<ReturnType<typeof createTestDatabases>>;
  let url: URL;

  beforeAll(async () => {
    const mysqlUrl = process.env.TEST_MYSQL_URL!;
    proxy = await TcpProxy.start(Number(new URL(mysqlUrl).port || 3306));
    databases = await createTestDatabases(mysqlUrl, `dd${randomBytes(4).toString('hex')}`);
    url = new URL(databases.authUrl);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    const db = open();
    try {
      await db.schema.createTable('items', (table) => table.string('id', 36).primary());
    } finally {
      await db.destroy();
    }
  });

  afterAll(async () => {
    await proxy?.close();
    await databases?.drop();
  });

  /** The knex instance the services use (lib/db.ts), through the proxy. */
  const open = () => createDatabase({ url: url.toString(), sqliteFile: ':memory:', migrations: {} });

  it('a connection cut mid-query (knex)', async () => {
    proxy.heal();
    const db = open();
    try {
      const query = rejection(db.raw('select sleep(5)'));
      await new Promise((resolve) => setTimeout(resolve, 300));
      proxy.cut();
      const err = await query;
      expect(err).toMatchObject({ fatal: true });
      expect(isDependencyDown(err)).toBe(true);
      // and the next query while the server is unreachable
      expect(isDependencyDown(await rejection(db.raw('select 1')))).toBe(true);
    } finally {
      proxy.heal();
      await db.destroy();
    }
  });

  it('a connection cut mid-transaction: the ROLLBACK on the dead connection fails ("Can\'t add new command when connection is in closed state")', async () => {
    proxy.heal();
    const db = open();
    try {
      const err = await rejection(
        db.transaction(async (trx) => {
          await trx('items').insert({ id: randomBytes(8).toString('hex') });
          proxy.cut();
          await trx('items').insert({ id: randomBytes(8).toString('hex') });
        }),
      );
      expect(err).toMatchObject({ fatal: true });
      expect(isDependencyDown(err)).toBe(true);
    } finally {
      proxy.heal();
      await db.destroy();
    }
  });

  it('a command on a connection that was lost (mysql2: closed state)', async () => {
    proxy.heal();
    const connection = mysql.createConnection({ host: '127.0.0.1', port: proxy.port, user: url.username || 'root', password: decodeURIComponent(url.password) });
    connection.on('error', () => undefined);
    try {
      await connection.promise().query('select 1');
      proxy.cut();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const err = await rejection(connection.promise().query('select 1'));
      expect(err).toMatchObject({ message: "Can't add new command when connection is in closed state", fatal: true });
      expect(err).not.toHaveProperty('code');
      expect(dependencyFailure(err)).toBe('mysql connection closed');
    } finally {
      proxy.heal();
      connection.destroy();
    }
  });

  it('a row lock held too long (ER_LOCK_WAIT_TIMEOUT) is "busy, retry"; syntax errors and duplicate keys are not', async () => {
    proxy.heal();
    const db = open();
    const holder = await db.transaction();
    try {
      await db('items').insert([{ id: 'locked' }, { id: 'taken' }]);
      await holder('items').where({ id: 'locked' }).forUpdate().first();
      const waited = await rejection(
        db.transaction(async (trx) => {
          await trx.raw('SET SESSION innodb_lock_wait_timeout = 1');
          await trx('items').where({ id: 'locked' }).update({ id: 'moved' });
        }),
      );
      expect(waited).toMatchObject({ code: 'ER_LOCK_WAIT_TIMEOUT' });
      expect(isDependencyDown(waited)).toBe(true);

      const duplicate = await rejection(db('items').insert({ id: 'taken' }));
      expect(duplicate).toMatchObject({ code: 'ER_DUP_ENTRY' });
      expect(isDependencyDown(duplicate)).toBe(false);
      const syntax = await rejection(db.raw('selec 1'));
      expect(syntax).toMatchObject({ code: 'ER_PARSE_ERROR' });
      expect(isDependencyDown(syntax)).toBe(false);
    } finally {
      await holder.rollback().catch(() => undefined);
      await db.destroy();
    }
  });
});
