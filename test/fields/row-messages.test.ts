import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rowFromValues } from '../../lib/fields/rows.js';
import { TICKET_FIELDS } from '../../lib/fields/ticket.js';
import { ticketMessage, ticketMessageOfRow } from '../../services/ticket/catalogue/messages.js';
import { TicketStore, toRecord, type TicketRow } from '../../services/ticket/store/ticket-store.js';
import type { TicketRecord } from '../../services/ticket/catalogue/ticket-fields.js';
import { storedValuesArbitrary } from './arbitraries.js';
import { withMigratedDatabase } from './database.js';

/**
 * The lists build each Ticket message straight from its row (ticketMessageOfRow); every
 * other answer goes row -> record -> message (ticketMessage). Both must give the same
 * message, over any ticket, as either backend returns its row.
 */

const ticketArbitrary = fc.record({ values: storedValuesArbitrary(TICKET_FIELDS), version: fc.integer({ min: 1, max: 1_000_000 }) });

/** A moment near the sale windows of the generated tickets, so that every status comes up. */
const nowArbitrary = fc.integer({ min: 31_536_000, max: 4_102_444_799 }).map((seconds) => new Date(seconds * 1000 + 500));

const generic = (row: TicketRow, now: Date) => ticketMessage(toRecord(row), now);

describe('ticketMessageOfRow', () => {
  it('gives the message of the record path for rows written by the service (the column forms of rowFromValues)', () => {
    fc.assert(
      fc.property(ticketArbitrary, nowArbitrary, fc.integer({ min: 1 }), ({ values, version }, now, id) => {
        const row = { ...rowFromValues(TICKET_FIELDS, values), id, version } as TicketRow;
        expect(ticketMessageOfRow(row, now)).toStrictEqual(generic(row, now));
      }),
      { numRuns: 500 },
    );
  });

  it('gives the message of the record path for the forms a driver may return (numbers or strings, Dates, booleans)', () => {
    const driverForms = (row: TicketRow) =>
      fc.record(
        Object.fromEntries(
          Object.entries(row).map(([column, value]) => {
            const forms: unknown[] = [value];
            if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) forms.push(Number(value), `${value}${value.includes('.') ? '' : '.'}00`);
            if (typeof value === 'string' && /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/.test(value)) forms.push(new Date(`${value.replace(' ', 'T')}Z`));
            if (value === 0 || value === 1) forms.push(value === 1, String(value));
            if (typeof value === 'number') forms.push(String(value));
            return [column, fc.constantFrom(...forms)];
          }),
        ),
      );
    fc.assert(
      fc.property(
        ticketArbitrary.chain(({ values, version }) => driverForms({ ...rowFromValues(TICKET_FIELDS, values), id: 1, version } as TicketRow)),
        nowArbitrary,
        (row, now) => {
          expect(ticketMessageOfRow(row as TicketRow, now)).toStrictEqual(generic(row as TicketRow, now));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('gives the message of the record path for the rows the database returns', async () => {
    await withMigratedDatabase('ticket', async (db) => {
      const store = new TicketStore(db);
      await fc.assert(
        fc.asyncProperty(fc.uniqueArray(ticketArbitrary, { minLength: 1, maxLength: 8, selector: ({ values }) => values.guid }), nowArbitrary, async (tickets, now) => {
          await db('tickets').del();
          for (const { values, version } of tickets) await store.insert({ ...(values as Omit<TicketRecord, 'id' | 'version'>), version });
          const rows = (await db('tickets').orderBy('id')) as TicketRow[];
          expect(rows).toHaveLength(tickets.length);
          for (const row of rows) expect(ticketMessageOfRow(row, now)).toStrictEqual(generic(row, now));
        }),
        { numRuns: 40 },
      );
    });
  });
});
