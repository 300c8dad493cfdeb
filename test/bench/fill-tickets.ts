/**
 * Bulk data for the bench: `tickets` tickets spread round-robin over `events` events, the
 * events round-robin over `companies` companies, written by the database itself (one
 * INSERT ... SELECT over a generated sequence per 100,000 rows), so 1,000,000 tickets take
 * seconds, not the hours the API would. Writes straight into a migrated ticket database.
 *
 * Company 0 is `firstCompanyId` (a real company, so a bench account can read its share); the
 * other companies and all guids are synthetic but well-formed and unique per fill (`run`).
 * Companies own consecutive blocks (events/companies events, tickets/companies tickets; the
 * tickets of a company round-robin over its events), so every index grows at its end: a
 * random layout costs the database several times longer to write.
 *
 *   tsx test/bench/fill-tickets.ts <mysql://.../ticket_db | path/to/ticket.sqlite> <first-company-guid> [tickets] [events] [companies]
 */
import { randomInt } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createDatabase, isMysql, type Knex } from '../../lib/db.js';
import { isMain } from '../../lib/process/is-main.js';

export interface FillOptions {
  firstCompanyId: string;
  tickets: number;
  events: number;
  companies: number;
}

export interface Filled {
  /** guid of event e (e < events); events 0 .. events/companies - 1 are the first company's. */
  eventGuid(e: number): string;
  /** guid of ticket n (n < tickets); tickets 0 .. tickets/companies - 1 are the first company's. */
  ticketGuid(n: number): string;
  seconds: number;
}

const CHUNK = 100_000;
const CREATED_AT = '2026-01-01 00:00:00.000';

/** 'ffffffff-KIND-4000-8000-RUNRUNRUNRUN': n in the first group, the fill's run number in the last. */
function guid(kind: string, n: number, run: number): string {
  return `${n.toString(16).padStart(8, '0')}-${kind}-4000-8000-${run.toString(16).padStart(12, '0')}`;
}

/** The same guid computed in SQL from an integer expression. */
function guidSql(db: Knex, kind: string, expr: string, run: number): string {
  const suffix = `-${kind}-4000-8000-${run.toString(16).padStart(12, '0')}`;
  return isMysql(db) ? `CONCAT(LOWER(LPAD(HEX(${expr}), 8, '0')), '${suffix}')` : `(printf('%08x', ${expr}) || '${suffix}')`;
}

/** `SELECT n FROM ...` with n = from .. from+count-1, ordered. */
function sequenceSql(db: Knex, from: number, count: number): string {
  if (isMysql(db)) {
    const digits = '(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)';
    const places = Math.max(1, Math.ceil(Math.log10(count)));
    const joins = Array.from({ length: places }, (_, i) => `${digits} d${i}`).join(' CROSS JOIN ');
    const value = Array.from({ length: places }, (_, i) => `d${i}.d * ${10 ** i}`).join(' + ');
    return `SELECT ${from} + ${value} AS n FROM ${joins} HAVING n < ${from + count}`;
  }
  return `WITH RECURSIVE seq(n) AS (SELECT ${from} UNION ALL SELECT n + 1 FROM seq WHERE n < ${from + count - 1}) SELECT n FROM seq`;
}

/** Company of event e. */
function companySql(db: Knex, eventExpr: string, options: FillOptions, run: number): string {
  const c = `FLOOR((${eventExpr}) / ${eventsPerCompany(options)})`;
  return `CASE WHEN ${c} = 0 THEN '${options.firstCompanyId.replace(/'/g, '')}' ELSE ${guidSql(db, '0c0c', c, run)} END`;
}

const eventsPerCompany = (o: FillOptions) => Math.max(1, Math.floor(o.events / o.companies));
const ticketsPerCompany = (o: FillOptions) => Math.max(1, Math.ceil(o.tickets / o.companies));

/** Event of ticket n: the ticket's company's block of events, round-robin. */
function eventSql(options: FillOptions): string {
  const perCompany = eventsPerCompany(options);
  return `(FLOOR(n / ${ticketsPerCompany(options)}) * ${perCompany} + n % ${perCompany})`;
}

export async function fillTickets(db: Knex, options: FillOptions): Promise<Filled> {
  const started = performance.now();
  // One transaction on one connection: SQLite commits once, MySQL skips the per-row uniqueness read-ahead.
  const run = await db.transaction(async (trx) => {
    if (isMysql(trx)) await trx.raw('SET SESSION unique_checks = 0');
    try {
      return await insertAll(trx, options);
    } finally {
      if (isMysql(trx)) await trx.raw('SET SESSION unique_checks = 1');
    }
  });
  if (isMysql(db)) await db.raw('ANALYZE TABLE tickets, events');
  else await db.raw('ANALYZE');
  return {
    eventGuid: (e) => guid('0e0e', e, run),
    ticketGuid: (n) => guid('0a0a', n, run),
    seconds: (performance.now() - started) / 1000,
  };
}

/** The INSERTs; returns the run number in the guids. */
async function insertAll(db: Knex, options: FillOptions): Promise<number> {
  const run = randomInt(1, 2 ** 40);
  const commonTicket = {
    vat_percentage: '21.00',
    late_personalization: 0,
    status_overrule: "'auto'",
    barcode_type: "'generate'",
    available_stock: 100,
    increment: 1,
    availability_margin: 0,
    min_orderable_amount_per_order: 1,
    max_orderable_amount_per_order: 20,
    percentage_service_costs_in_ticket: '0.00',
    available_in_cashr: 0,
    hide_without_coupon: 0,
    combines_products: 1,
    swappable: 1,
    seated: 0,
    include_service_cost_in_price: 0,
    created_at: `'${CREATED_AT}'`,
    updated_at: `'${CREATED_AT}'`,
  };
  for (let from = 0; from < options.events; from += CHUNK) {
    const count = Math.min(CHUNK, options.events - from);
    await db.raw(
      `INSERT INTO events (guid, company_id, name, created_at, updated_at)
       SELECT ${guidSql(db, '0e0e', 'n', run)}, ${companySql(db, 'n', options, run)}, 'Bench event', '${CREATED_AT}', '${CREATED_AT}'
       FROM (${sequenceSql(db, from, count)}) seq ORDER BY n`,
    );
  }
  const columns = Object.keys(commonTicket).join(', ');
  const values = Object.values(commonTicket).join(', ');
  for (let from = 0; from < options.tickets; from += CHUNK) {
    const count = Math.min(CHUNK, options.tickets - from);
    const event = eventSql(options);
    await db.raw(
      `INSERT INTO tickets (guid, company_id, event_id, name, ${columns})
       SELECT ${guidSql(db, '0a0a', 'n', run)}, ${companySql(db, event, options, run)}, ${guidSql(db, '0e0e', event, run)}, 'Bench ticket', ${values}
       FROM (${sequenceSql(db, from, count)}) seq ORDER BY n`,
    );
  }
  return run;
}

async function main(): Promise<void> {
  const [target, firstCompanyId, tickets = '1000000', events = '10000', companies = '100'] = process.argv.slice(2);
  if (!target || !firstCompanyId) throw new Error('usage: fill-tickets.ts <mysql-url | sqlite-file> <first-company-guid> [tickets] [events] [companies]');
  const isUrl = /^mysql2?:\/\//.test(target);
  const db = createDatabase({ url: isUrl ? target : undefined, sqliteFile: isUrl ? '' : target, migrations: {} });
  try {
    const filled = await fillTickets(db, { firstCompanyId, tickets: Number(tickets), events: Number(events), companies: Number(companies) });
    console.log(`${tickets} tickets over ${events} events and ${companies} companies in ${filled.seconds.toFixed(1)} s`);
  } finally {
    await db.destroy();
  }
}

if (isMain(import.meta.url)) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
