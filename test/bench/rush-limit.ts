/**
 * The raw-database limit of the on-sale rush (issue 22): the rush's moves (reserve 1-4, then
 * confirm with generated barcodes, until sold out) done by a bare mysql2 pool on the same
 * database server, with no RPC, no HTTP and no framework, writing the rows our stack writes
 * (the ticket's counters, a reservation row, its barcodes, an outbox row per move). Two ways:
 *
 * - `per move`: one transaction per move under the ticket's row lock, as the ticket service
 *   does today (lock, conditional counter update, insert, commit), over a pool of the ticket
 *   service's size;
 * - `batched`: the moves waiting on the ticket are taken together into one transaction (one
 *   lock, one counter update, one multi-row insert per table, one commit), each still checked
 *   against the stock it sees and answered on its own: group commit done by the client.
 *
 * The figures are what the database allows on this machine, so `npm run bench` prints ours
 * beside them. Prints nothing itself; asserts nothing.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import mysql, { type Pool, type PoolConnection, type ResultSetHeader, type RowDataPacket } from 'mysql2/promise';

export type LimitMode = 'per move' | 'batched';

export interface RushFigures {
  reservations: number;
  'reservations/s': number;
  'reserve p50 ms': number;
  'reserve p99 ms': number;
  'confirms/s': number;
  oversold: number;
  errors: number;
}

interface Options {
  /** A MySQL server URL; a scratch database is made on it and dropped afterwards. */
  mysqlUrl: string;
  stock: number;
  buyers: number;
  /** Connections of the per-move pool (the ticket service's pool size). */
  poolSize?: number;
  /** The most moves one batch takes. */
  maxBatch?: number;
}

const ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
const barcode = () => Array.from({ length: 16 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');

const SCHEMA = [
  `CREATE TABLE tickets (id INT AUTO_INCREMENT PRIMARY KEY, guid CHAR(36) NOT NULL UNIQUE, company_id CHAR(36) NOT NULL, event_id CHAR(36) NOT NULL,
     available_stock INT NOT NULL, availability_margin INT NOT NULL DEFAULT 0, sold_count INT NOT NULL DEFAULT 0,
     reserved_count INT NOT NULL DEFAULT 0, pending_count INT NOT NULL DEFAULT 0, version INT NOT NULL DEFAULT 1) DEFAULT CHARSET=utf8mb4`,
  `CREATE TABLE reservations (id INT AUTO_INCREMENT PRIMARY KEY, guid VARCHAR(36) NOT NULL UNIQUE, company_id VARCHAR(36) NOT NULL,
     event_id VARCHAR(36) NOT NULL, ticket_id VARCHAR(36) NOT NULL, amount INT NOT NULL, state VARCHAR(16) NOT NULL,
     expires_at DATETIME(3) NULL, created_at DATETIME(3) NOT NULL, updated_at DATETIME(3) NOT NULL,
     INDEX (ticket_id, id), INDEX (ticket_id, state, expires_at), INDEX (state, expires_at)) DEFAULT CHARSET=utf8mb4`,
  `CREATE TABLE barcodes (id INT AUTO_INCREMENT PRIMARY KEY, company_id VARCHAR(36) NOT NULL, event_id VARCHAR(36) NOT NULL,
     ticket_id VARCHAR(36) NOT NULL, reservation_id VARCHAR(36) NOT NULL, barcode VARCHAR(64) COLLATE utf8mb4_bin NOT NULL,
     scanned_at DATETIME(3) NULL, created_at DATETIME(3) NOT NULL, UNIQUE (event_id, barcode), INDEX (reservation_id, id)) DEFAULT CHARSET=utf8mb4`,
  `CREATE TABLE webhook_events (id INT AUTO_INCREMENT PRIMARY KEY, guid VARCHAR(36) NOT NULL UNIQUE, company_id VARCHAR(36) NOT NULL,
     type VARCHAR(64) NOT NULL, data TEXT NOT NULL, created_at DATETIME(3) NOT NULL, fanned_out TINYINT NOT NULL DEFAULT 0,
     endpoint_id VARCHAR(36) NULL, INDEX (fanned_out, id)) DEFAULT CHARSET=utf8mb4`,
];

interface Ticket {
  id: number;
  guid: string;
  company: string;
  event: string;
}

interface Reserve {
  kind: 'reserve';
  guid: string;
  amount: number;
}
interface Confirm {
  kind: 'confirm';
  guid: string;
  amount: number;
}
type Move = Reserve | Confirm;

const HOLD_MS = 480_000;
const LEFT = 'available_stock - availability_margin - sold_count - reserved_count - pending_count';

/** Placeholders for `rows` rows of `columns` values each. */
const valuesList = (rows: number, columns: number) => Array.from({ length: rows }, () => `(${Array(columns).fill('?').join(',')})`).join(',');

function outboxRows(ticket: Ticket, moves: readonly Move[], now: Date): unknown[] {
  return moves.flatMap((move) => [
    randomUUID(),
    ticket.company,
    move.kind === 'reserve' ? 'reservation.created' : 'reservation.confirmed',
    JSON.stringify({ guid: move.guid, ticket_id: ticket.guid, amount: move.amount, state: move.kind === 'reserve' ? 'reserved' : 'confirmed' }),
    now,
    0,
  ]);
}

/** Writes the accepted moves of one transaction: reservations, state changes, barcodes, outbox rows, counters. */
async function writeMoves(conn: PoolConnection, ticket: Ticket, reserves: readonly Reserve[], confirms: readonly Confirm[]): Promise<void> {
  const all = [...reserves, ...confirms];
  if (all.length === 0) return;
  const now = new Date();
  if (reserves.length) {
    await conn.query(
      `INSERT INTO reservations (guid, company_id, event_id, ticket_id, amount, state, expires_at, created_at, updated_at) VALUES ${valuesList(reserves.length, 9)}`,
      reserves.flatMap((r) => [r.guid, ticket.company, ticket.event, ticket.guid, r.amount, 'reserved', new Date(now.getTime() + HOLD_MS), now, now]),
    );
  }
  if (confirms.length) {
    const [moved] = await conn.query<ResultSetHeader>(`UPDATE reservations SET state = 'confirmed', expires_at = NULL, updated_at = ? WHERE guid IN (?) AND state = 'reserved'`, [
      now,
      confirms.map((c) => c.guid),
    ]);
    if (moved.affectedRows !== confirms.length) throw new Error('a confirmed reservation was not reserved');
    const codes = confirms.flatMap((c) => Array.from({ length: c.amount }, () => [ticket.company, ticket.event, ticket.guid, c.guid, barcode(), now]));
    await conn.query(`INSERT INTO barcodes (company_id, event_id, ticket_id, reservation_id, barcode, created_at) VALUES ${valuesList(codes.length, 6)}`, codes.flat());
  }
  await conn.query(`INSERT INTO webhook_events (guid, company_id, type, data, created_at, fanned_out) VALUES ${valuesList(all.length, 6)}`, outboxRows(ticket, all, now));
  const reserved = reserves.reduce((sum, r) => sum + r.amount, 0);
  const sold = confirms.reduce((sum, c) => sum + c.amount, 0);
  await conn.query(`UPDATE tickets SET reserved_count = reserved_count + ?, sold_count = sold_count + ?, version = version + 1 WHERE id = ?`, [reserved - sold, sold, ticket.id]);
}

/** One transaction per move: lock, check, write, commit. True when the move was taken. */
async function perMove(pool: Pool, ticket: Ticket, move: Move): Promise<boolean> {
  const conn = await pool.getConnection();
  try {
    await conn.beginTransaction();
    const [[locked]] = await conn.query<RowDataPacket[]>(`SELECT ${LEFT} AS left_over FROM tickets WHERE id = ? FOR UPDATE`, [ticket.id]);
    if (move.kind === 'reserve' && Number(locked!.left_over) < move.amount) {
      await conn.rollback();
      return false;
    }
    await writeMoves(conn, ticket, move.kind === 'reserve' ? [move] : [], move.kind === 'confirm' ? [move] : []);
    await conn.commit();
    return true;
  } catch (err) {
    await conn.rollback().catch(() => undefined);
    throw err;
  } finally {
    conn.release();
  }
}

/**
 * Group commit by the client: moves that arrive while a batch runs wait for the next one;
 * each batch locks the ticket once, checks every move against the stock left after the moves
 * before it, writes the accepted ones together and commits once.
 */
function batcher(pool: Pool, ticket: Ticket, maxBatch: number): (move: Move) => Promise<boolean> {
  const waiting: { move: Move; done: (taken: boolean) => void; failed: (err: unknown) => void }[] = [];
  let running = false;
  const run = async () => {
    running = true;
    while (waiting.length) {
      const batch = waiting.splice(0, maxBatch);
      const conn = await pool.getConnection();
      try {
        await conn.beginTransaction();
        const [[locked]] = await conn.query<RowDataPacket[]>(`SELECT ${LEFT} AS left_over FROM tickets WHERE id = ? FOR UPDATE`, [ticket.id]);
        let left = Number(locked!.left_over);
        const taken = batch.map(({ move }) => {
          if (move.kind === 'confirm') return true;
          if (move.amount > left) return false;
          left -= move.amount;
          return true;
        });
        const accepted = batch.filter((_, i) => taken[i]).map((w) => w.move);
        await writeMoves(
          conn,
          ticket,
          accepted.filter((m): m is Reserve => m.kind === 'reserve'),
          accepted.filter((m): m is Confirm => m.kind === 'confirm'),
        );
        await conn.commit();
        batch.forEach((w, i) => w.done(taken[i]!));
      } catch (err) {
        await conn.rollback().catch(() => undefined);
        batch.forEach((w) => w.failed(err));
      } finally {
        conn.release();
      }
    }
    running = false;
  };
  return (move) =>
    new Promise<boolean>((done, failed) => {
      waiting.push({ move, done, failed });
      if (!running) void run();
    });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : 0;
}

/** Runs the rush with bare SQL in `mode` on a scratch database of the server; its figures. */
export async function rushLimit(mode: LimitMode, options: Options): Promise<RushFigures> {
  const url = new URL(options.mysqlUrl);
  const database = `rush_limit_${process.pid}_${Date.now()}`;
  const admin = await mysql.createConnection({ uri: `${url.protocol}//${url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : ''}${url.host}/` });
  await admin.query(`CREATE DATABASE \`${database}\``);
  url.pathname = `/${database}`;
  const pool = mysql.createPool({ uri: url.toString(), connectionLimit: options.poolSize ?? 10, timezone: 'Z' });
  try {
    for (const statement of SCHEMA) await pool.query(statement);
    const ticket: Ticket = { id: 0, guid: randomUUID(), company: randomUUID(), event: randomUUID() };
    const [inserted] = await pool.query<ResultSetHeader>('INSERT INTO tickets (guid, company_id, event_id, available_stock) VALUES (?, ?, ?, ?)', [
      ticket.guid,
      ticket.company,
      ticket.event,
      options.stock,
    ]);
    ticket.id = inserted.insertId;
    const apply = mode === 'batched' ? batcher(pool, ticket, options.maxBatch ?? 500) : (move: Move) => perMove(pool, ticket, move);

    const latencies: number[] = [];
    let reservations = 0;
    let bought = 0;
    let errors = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: options.buyers }, async (_, buyer) => {
        for (let round = 0; errors <= options.buyers; round++) {
          const amount = 1 + ((buyer + round) % 4);
          const guid = randomUUID();
          const t0 = performance.now();
          try {
            const taken = await apply({ kind: 'reserve', guid, amount });
            latencies.push(performance.now() - t0);
            if (!taken) return;
            await apply({ kind: 'confirm', guid, amount });
            reservations++;
            bought += amount;
          } catch {
            errors++;
          }
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const [[final]] = await pool.query<RowDataPacket[]>('SELECT sold_count, reserved_count, pending_count FROM tickets WHERE id = ?', [ticket.id]);
    latencies.sort((a, b) => a - b);
    const held = Number(final!.sold_count) + Number(final!.reserved_count) + Number(final!.pending_count);
    return {
      reservations,
      'reservations/s': Math.round(reservations / seconds),
      'reserve p50 ms': Number(percentile(latencies, 50).toFixed(1)),
      'reserve p99 ms': Number(percentile(latencies, 99).toFixed(1)),
      'confirms/s': Math.round(reservations / seconds),
      oversold: Math.max(0, held - options.stock) + Math.max(0, bought - Number(final!.sold_count)),
      errors,
    };
  } finally {
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin.end();
  }
}
