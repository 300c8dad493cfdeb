/**
 * The stock engine's table (lib/stock-moves.ts, issue 19 item 3): the counter deltas it
 * derives, the refusals by state, the webhook types and the docs table derived from it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RESERVATION_STATES } from '../../lib/fields/reservation.js';
import { WEBHOOK_EVENT_TYPES } from '../../lib/webhooks/event-types.js';
import { counterDelta, MOVES, movesMarkdown, refusalFrom, sumDeltas, type MoveName } from '../../lib/stock-moves.js';

describe('the table of states and moves', () => {
  it('derives typed counter deltas: the amount leaves one counter and enters another, never twice', () => {
    expect(counterDelta(null, 'reserved', 3)).toEqual({ reserved_count: 3 });
    expect(counterDelta('reserved', 'pending', 3)).toEqual({ reserved_count: -3, pending_count: 3 });
    expect(counterDelta('pending', 'confirmed', 3)).toEqual({ pending_count: -3, sold_count: 3 });
    expect(counterDelta('reserved', 'released', 3)).toEqual({ reserved_count: -3 });
    expect(counterDelta('pending', 'expired', 3)).toEqual({ pending_count: -3 });
    expect(counterDelta('reserved', 'reserved', 3)).toEqual({});
    expect(sumDeltas([counterDelta('reserved', 'expired', 2), counterDelta('pending', 'expired', 5), counterDelta('reserved', 'expired', 1)])).toEqual({
      reserved_count: -3,
      pending_count: -5,
    });
  });

  it('refuses a move from a state its row lacks: reservation_expired from expired where the row answers it, invalid_transition otherwise', () => {
    const expected: Record<Exclude<MoveName, 'reserve'>, Record<string, string | undefined>> = {
      pending: { reserved: undefined, pending: 'invalid_transition', confirmed: 'invalid_transition', released: 'invalid_transition', expired: 'reservation_expired', cancelled: 'invalid_transition' },
      confirm: { reserved: undefined, pending: undefined, confirmed: 'invalid_transition', released: 'invalid_transition', expired: 'reservation_expired', cancelled: 'invalid_transition' },
      release: { reserved: undefined, pending: undefined, confirmed: 'invalid_transition', released: 'invalid_transition', expired: 'reservation_expired', cancelled: 'invalid_transition' },
      // The engine's own move, never asked of a sale that is not live: it answers no refusal of its own.
      expire: { reserved: undefined, pending: undefined, confirmed: 'invalid_transition', released: 'invalid_transition', expired: 'invalid_transition', cancelled: 'invalid_transition' },
      // PRODUCT.md 14: anything but confirmed (an expired sale too) is invalid_transition.
      cancel: { reserved: 'invalid_transition', pending: 'invalid_transition', confirmed: undefined, released: 'invalid_transition', expired: 'invalid_transition', cancelled: 'invalid_transition' },
    };
    for (const [move, byState] of Object.entries(expected)) {
      for (const state of RESERVATION_STATES) expect(refusalFrom(move as MoveName, state), `${move} from ${state}`).toBe(byState[state]);
    }
  });

  it('the reservation webhook types are one per move, in the table\'s order', () => {
    expect(WEBHOOK_EVENT_TYPES.filter((type) => type.startsWith('reservation.'))).toEqual(Object.values(MOVES).map((move) => `reservation.${move.event}`));
    expect(WEBHOOK_EVENT_TYPES).toContain('reservation.created');
  });

  it('docs/stock-moves.md carries the table as movesMarkdown() renders it', () => {
    const docs = readFileSync(new URL('../../docs/stock-moves.md', import.meta.url), 'utf8');
    expect(docs).toContain(`<!-- generated: movesMarkdown() of lib/stock-moves.ts -->\n${movesMarkdown()}\n<!-- end generated -->`);
  });
});
