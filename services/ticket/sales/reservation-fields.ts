import type { ValuesOf } from '../../../lib/fields/kinds.js';
import type { RESERVATION_FIELDS } from '../../../lib/fields/reservation.js';

/** The reservation's types, derived from its field table (lib/fields/reservation.ts). */

/** A stored reservation with its barcodes, plus the row id (creation order, the paging key). */
export type ReservationRecord = ValuesOf<typeof RESERVATION_FIELDS, 'server-managed' | 'computed'> & { id: number };
