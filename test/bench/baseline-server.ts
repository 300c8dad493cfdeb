/**
 * The limit the bench compares the stack with: one process doing the same work with the
 * same libraries and nothing else (express + mysql2 + node-redis). Every request checks the
 * bearer session in Redis (one GET), then:
 *
 *   GET /ticket/:guid              one ticket by its unique key, as JSON
 *   GET /event/:guid/ticket?limit  the first `limit` tickets of the event (the per-event page)
 *   GET /ticket                    every live ticket of the session's companies, streamed from
 *                                  MySQL (a cursor: mysql2 `.stream()`) as one JSON array
 *
 * Reads the stack's own ticket database. Sessions are `<BASELINE_REDIS_PREFIX><bearer token>` =
 * `{"companyIds": [...]}`, written by the bench. Prints `listening <port>` when ready.
 *
 * Env: BASELINE_MYSQL_URL, BASELINE_REDIS_URL, BASELINE_REDIS_PREFIX, PORT (0 = any).
 */
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import express, { type Request, type Response } from 'express';
import mysql, { type RowDataPacket } from 'mysql2';
import { createClient } from 'redis';

const url = new URL(process.env.BASELINE_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test');
const pool = mysql.createPool({
  host: url.hostname,
  port: Number(url.port || 3306),
  user: decodeURIComponent(url.username),
  password: decodeURIComponent(url.password),
  database: url.pathname.slice(1),
  connectionLimit: 10,
  dateStrings: true,
  supportBigNumbers: true,
});
const promisePool = pool.promise();
const redis = createClient({ url: process.env.BASELINE_REDIS_URL ?? 'redis://127.0.0.1:6379' });
const prefix = process.env.BASELINE_REDIS_PREFIX ?? 'bench:baseline:';

async function companies(req: Request, res: Response): Promise<string[] | undefined> {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  const session = token ? await redis.get(`${prefix}${token}`) : null;
  if (!session) {
    res.status(401).json({ title: 'Unauthorized' });
    return undefined;
  }
  return (JSON.parse(session) as { companyIds: string[] }).companyIds;
}

const app = express();
app.disable('x-powered-by');

app.get('/ticket/:guid', async (req, res) => {
  const ids = await companies(req, res);
  if (!ids) return;
  const [rows] = await promisePool.query<RowDataPacket[]>('SELECT * FROM tickets WHERE guid = ? AND company_id IN (?) AND deleted_at IS NULL', [req.params.guid, ids]);
  if (!rows[0]) return void res.status(404).json({ title: 'Not Found' });
  res.json(rows[0]);
});

app.get('/event/:guid/ticket', async (req, res) => {
  const ids = await companies(req, res);
  if (!ids) return;
  const limit = Math.min(100, Number(req.query.limit ?? 100));
  const [rows] = await promisePool.query<RowDataPacket[]>(
    'SELECT * FROM tickets WHERE event_id = ? AND company_id IN (?) AND deleted_at IS NULL ORDER BY id LIMIT ?',
    [req.params.guid, ids, limit + 1],
  );
  res.json({ items: rows.slice(0, limit), next: rows.length > limit ? String(rows[limit - 1]!.id) : null });
});

app.get('/ticket', async (req, res) => {
  const ids = await companies(req, res);
  if (!ids) return;
  res.status(200).type('application/json');
  let first = true;
  const toJson = new Transform({
    writableObjectMode: true,
    transform(row, _encoding, done) {
      done(null, `${first ? '[' : ','}${JSON.stringify(row)}`);
      first = false;
    },
    flush(done) {
      done(null, first ? '[]' : ']');
    },
  });
  const rows = pool.query('SELECT * FROM tickets WHERE company_id IN (?) AND deleted_at IS NULL ORDER BY id', [ids]).stream({ highWaterMark: 1000 });
  await pipeline(rows, toJson, res).catch(() => res.destroy());
});

await redis.connect();
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening ${typeof address === 'object' && address ? address.port : ''}`);
});
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void redis.close();
  pool.end();
});
