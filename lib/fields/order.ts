import { MAX_UNITS_PER_ORDER } from './reservation.js';

/** Orders (PRODUCT.md 12): what is the order's own; its lines are reservations (lib/fields/reservation.ts). */

/** Where an order is sold: value i is ticketing.v1.OrderChannel number i + 1. */
export const ORDER_CHANNELS = ['online', 'box_office'] as const;
export type OrderChannel = (typeof ORDER_CHANNELS)[number];

/** Lines of one order (each ticket at most once). */
export const ORDER_LINES = { min: 1, max: 20 } as const;

/** Units of one order in all, as of one reservation. */
export const MAX_UNITS = MAX_UNITS_PER_ORDER;
