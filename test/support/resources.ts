import { connect } from 'node:net';
import knexFactory from 'knex';
import { createClient } from 'redis';

/** Per-suite resources on the shared servers: own databases, own Redis key prefix, always removed after. */

export function replaceDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export async function withMysql<T>(url: string, fn: (db: ReturnType<typeof knexFactory>) => Promise<T>): Promise<T> {
  const parsed = new URL(url);
  const db = knexFactory({
    client: 'mysql2',
    connection: {
      host: parsed.hostname,
      port: Number(parsed.port || 3306),
      user: decodeURIComponent(parsed.username),
      password: decodeURIComponent(parsed.password),
      database: parsed.pathname.slice(1) || undefined,
    },
    pool: { min: 0, max: 1 },
  });
  try {
    return await fn(db);
  } finally {
    await db.destroy();
  }
}

/** `<id>_auth` and `<id>_ticket` on the server of `mysqlUrl` (utf8mb4), and how to drop them. */
export async function createTestDatabases(
  mysqlUrl: string,
  id: string,
): Promise<{ authUrl: string; ticketUrl: string; drop(): Promise<void> }> {
  const names = [`${id}_auth`, `${id}_ticket`];
  await withMysql(mysqlUrl, async (db) => {
    for (const name of names) await db.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  });
  return {
    authUrl: replaceDatabase(mysqlUrl, names[0]!),
    ticketUrl: replaceDatabase(mysqlUrl, names[1]!),
    drop: () =>
      withMysql(mysqlUrl, async (db) => {
        for (const name of names) await db.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      }),
  };
}

export async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
      if (keys.length) await client.del(keys);
    }
  } finally {
    await client.close();
  }
}

/** True when a TCP connection to the port on loopback is accepted. */
export function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
