import { status } from '@grpc/grpc-js';
import { LIVE_STATES, RESERVATION_STATES, type ReservationState } from './fields/reservation.js';
import { STOCK_CONFLICTS, type StockConflictCode } from './stock-conflicts.js';

/**
 * The stock engine's states and moves (PRODUCT.md 9 and 12) as one table: which state a move
 * leaves from, where it goes, what it does to a ticket's counters, the webhook event it
 * records and the refusals it can answer with. The ticket service checks and applies moves by
 * it (services/ticket/sales/reservation-service.ts, store/reservation-store.ts), the webhook event
 * types are derived from it (lib/webhooks/fields.ts), the gRPC status and the 409's `code` of
 * each refusal come from lib/stock-conflicts.ts through `refusals`, and docs/stock-moves.md's
 * "States and moves" table is `movesMarkdown()` (test/stock/engine.test.ts holds it equal).
 * A new move is a row here plus the code that applies it.
 */

/** The counters of a ticket that hold the amount of a live or sold state. */
export type Counter = 'reserved_count' | 'pending_count' | 'sold_count';

/** Where a state's amount is counted on its ticket; null: it holds nothing (the stock is back). */
export const HELD_IN = {
  reserved: 'reserved_count',
  pending: 'pending_count',
  confirmed: 'sold_count',
  released: null,
  expired: null,
  cancelled: null,
} as const satisfies Record<ReservationState, Counter | null>;

/** A change of a ticket's counters: each counter at most once, by how much it moves. */
export type CounterDelta = Readonly<Partial<Record<Counter, number>>>;

export interface MoveRule {
  /** The states it may leave from; empty for the move that creates (reserve). */
  from: readonly ReservationState[];
  to: ReservationState;
  /** The past participle of the move, for "A released reservation cannot be confirmed." */
  done: string;
  /** The last part of its webhook event type (`reservation.<event>`, `order.<event>`). */
  event: string;
  /** The refusals it may answer with (their gRPC status and text: lib/stock-conflicts.ts). */
  refusals: readonly StockConflictCode[];
  /** What it means, one line for the docs. */
  description: string;
  /** Runs in a transaction of its own, never batched with its ticket's other moves (rare, and it changes what they read). */
  alone?: boolean;
  /** What it does to the counters, for the docs, when that is not its whole amount moving from `from` to `to` (a cancellation moves the units it names). */
  counters?: string;
  /**
   * A move of an existing sale (a reservation or a whole order): how it is called. The gRPC
   * method is `rpc` with `{Noun}` the sale's (MarkReservationPending, MarkOrderPending), the
   * REST route POST /reservation/{guid}/<move> and /order/{guid}/<move>, the OpenAPI body the
   * component `Reservation<body>` (an order's own body where lib/fields/order.ts has one). The
   * gateway's routes, bindings and operations and the service's handlers are derived from it.
   */
  wire?: { rpc: `${string}{Noun}${string}`; summary: string; body: string; text: string };
}

/** Refusals of every move of an existing reservation: from a state that does not allow it. */
const FROM_STATE = ['invalid_transition', 'reservation_expired'] as const;

export const MOVES = {
  reserve: {
    from: [],
    to: 'reserved',
    done: 'reserved',
    event: 'created',
    refusals: ['not_on_sale', 'insufficient_stock'],
    description: 'Takes the amount from the stock left, for ttl_seconds.',
  },
  pending: {
    from: ['reserved'],
    to: 'pending',
    done: 'marked pending',
    event: 'pending',
    refusals: FROM_STATE,
    description: 'Payment started; holds the amount for ttl_seconds from now.',
    wire: {
      rpc: 'Mark{Noun}Pending',
      summary: 'Payment started: reserved -> pending',
      body: 'Pending',
      text: 'The amount moves from reserved_count to pending_count; it holds for ttl_seconds from now.',
    },
  },
  confirm: {
    from: ['reserved', 'pending'],
    to: 'confirmed',
    done: 'confirmed',
    event: 'confirmed',
    refusals: [...FROM_STATE, 'barcode_taken'],
    description: 'Sold; barcodes are issued by the ticket\'s barcode_type.',
    wire: {
      rpc: 'Confirm{Noun}',
      summary: 'Sold: reserved or pending -> confirmed; barcodes are issued',
      body: 'Confirm',
      text: 'The amount moves to sold_count; barcodes are generated, taken from the body (predefined) or none, by the ticket\'s barcode_type.',
    },
  },
  release: {
    from: ['reserved', 'pending'],
    to: 'released',
    done: 'released',
    event: 'released',
    refusals: FROM_STATE,
    description: 'The amount goes back to the stock.',
    wire: { rpc: 'Release{Noun}', summary: 'Give the stock back: reserved or pending -> released', body: 'Empty', text: 'The amount leaves reserved_count or pending_count.' },
  },
  expire: {
    from: LIVE_STATES,
    to: 'expired',
    done: 'expired',
    event: 'expired',
    refusals: [],
    description: 'At expires_at (on the next move or read of the ticket, or by the sweeper); the amount goes back to the stock.',
  },
  cancel: {
    from: ['confirmed'],
    to: 'cancelled',
    done: 'cancelled',
    event: 'cancelled',
    refusals: ['invalid_transition', 'already_scanned', 'barcode_cancelled'],
    description: 'Cancels sold units (all, or the barcodes named): they stop opening the door. The sale becomes cancelled once every unit is; until then it stays confirmed.',
    counters: 'sold_count - n (the units cancelled); available_stock - n too without return_stock',
    alone: true,
    wire: {
      rpc: 'Cancel{Noun}',
      summary: 'Cancel a sale or some of its barcodes: confirmed -> cancelled once every unit is',
      body: 'Cancel',
      text: 'The barcodes named (or every one not yet cancelled) get cancelled_at and no longer open the door; sold_count - n, and available_stock - n as well without return_stock.',
    },
  },
} as const satisfies Record<string, MoveRule>;

export type MoveName = keyof typeof MOVES;

/** The moves of an existing sale, called by clients (the rows with a `wire`), in the table's order. */
export type SaleMove = { [K in MoveName]: (typeof MOVES)[K] extends { wire: object } ? K : never }[MoveName];
export const SALE_MOVES = (Object.keys(MOVES) as MoveName[]).filter((move): move is SaleMove => 'wire' in MOVES[move]);

/** What a sale is called on the wire: a reservation, or an order. */
export type SaleNoun = 'Reservation' | 'Order';

type Replace<S extends string, F extends string, T extends string> = S extends `${infer A}${F}${infer B}` ? `${A}${T}${B}` : S;

/** The generated client's and server's member of a sale's move, as a type: markReservationPending. */
export type MoveMember<M extends SaleMove, N extends SaleNoun> = Uncapitalize<Replace<(typeof MOVES)[M]['wire']['rpc'], '{Noun}', N>>;

/** The gRPC method of a sale's move (MarkReservationPending); `lower` for the generated client's and server's member name (markReservationPending). */
export function moveRpc(move: SaleMove, noun: SaleNoun, lower = false): string {
  const name = MOVES[move].wire.rpc.replace('{Noun}', noun);
  return lower ? name[0]!.toLowerCase() + name.slice(1) : name;
}

/** The webhook event types of the moves of a resource noun (`reservation`, `order`), in the table's order. */
export const moveEventTypes = <N extends string>(noun: N) =>
  Object.values(MOVES).map((move) => `${noun}.${move.event}` as `${N}.${(typeof MOVES)[MoveName]['event']}`);

/**
 * What moving `amount` from `from` (null: newly taken) to `to` does to the counters: it leaves
 * the counter `from` is held in and enters the one `to` is held in. One entry per counter, so
 * nothing is counted twice; a move between two states held in the same counter is no change.
 */
export function counterDelta(from: ReservationState | null, to: ReservationState, amount: number): CounterDelta {
  const delta: Partial<Record<Counter, number>> = {};
  const source = from === null ? null : HELD_IN[from];
  const target = HELD_IN[to];
  if (source) delta[source] = (delta[source] ?? 0) - amount;
  if (target) delta[target] = (delta[target] ?? 0) + amount;
  for (const counter of Object.keys(delta) as Counter[]) if (delta[counter] === 0) delete delta[counter];
  return delta;
}

/** Several deltas as one (the expiry of many reservations in one statement). */
export function sumDeltas(deltas: readonly CounterDelta[]): CounterDelta {
  const total: Partial<Record<Counter, number>> = {};
  for (const delta of deltas) for (const [counter, by] of Object.entries(delta) as Array<[Counter, number]>) total[counter] = (total[counter] ?? 0) + by;
  return total;
}

/** Whether a move runs in a transaction of its own. */
export const runsAlone = (move: MoveName): boolean => (MOVES[move] as MoveRule).alone === true;

/** The refusal of a move from the current state, or undefined when the state allows it (reservation_expired only for the moves that answer it). */
export function refusalFrom(move: MoveName, current: ReservationState): StockConflictCode | undefined {
  const rule: MoveRule = MOVES[move];
  if (rule.from.includes(current)) return undefined;
  return current === 'expired' && rule.refusals.includes('reservation_expired') ? 'reservation_expired' : 'invalid_transition';
}

/** docs/stock-moves.md "States and moves", derived from the table. */
export function movesMarkdown(): string {
  const lines = [
    '| Move | From | To | Counters | Webhook | Refusals (409 `code`, gRPC status) |',
    '|---|---|---|---|---|---|',
  ];
  for (const [name, move] of Object.entries(MOVES) as Array<[MoveName, MoveRule]>) {
    const froms = move.from.length ? move.from : [null];
    const counters = move.counters ?? [...new Set(froms.map((from) => deltaText(counterDelta(from, move.to, 1))))].join('; ');
    const refusals = move.refusals.map((code) => `\`${code}\` (${grpcName(code)})`).join(', ') || '-';
    lines.push(`| ${name} | ${move.from.join(', ') || '(new)'} | ${move.to} | ${counters} | \`*.${move.event}\` | ${refusals} |`);
  }
  lines.push('', `States: ${RESERVATION_STATES.join(', ')}; live (hold stock, can expire): ${LIVE_STATES.join(', ')}.`);
  return lines.join('\n');
}

function deltaText(delta: CounterDelta): string {
  return (Object.entries(delta) as Array<[Counter, number]>).map(([counter, by]) => `${counter} ${by > 0 ? '+' : '-'} amount`).join(', ') || 'none';
}

const grpcName = (code: StockConflictCode) => status[STOCK_CONFLICTS[code].grpc];
