import { Reservation, Scan } from '../../../lib/gen/ticketing/v1/reservation.js';
import { toMessageFields } from '../../../lib/fields/messages.js';
import { RESERVATION_FIELDS, SCAN_FIELDS } from '../../../lib/fields/reservation.js';
import type { ValuesOf } from '../../../lib/fields/kinds.js';
import type { ReservationRecord } from './reservation-fields.js';

/** A stored reservation as its protobuf message, by the field table (lib/fields/messages.ts). */
export function reservationMessage(record: Omit<ReservationRecord, 'id'>): Reservation {
  return Reservation.fromPartial(toMessageFields(RESERVATION_FIELDS, record) as Partial<Reservation>);
}

export type ScanValues = ValuesOf<typeof SCAN_FIELDS, 'server-managed'>;

export function scanMessage(scan: ScanValues): Scan {
  return Scan.fromPartial(toMessageFields(SCAN_FIELDS, scan) as Partial<Scan>);
}
