import type { Reservation } from '../../lib/gen/ticketing/v1/reservation.js';
import { RESERVATION_FIELDS, type ReservationRecord } from './domain/reservation-fields.js';

/** A stored reservation as its protobuf message, field by field from the one list; null becomes unset. */
export function reservationMessage(record: Omit<ReservationRecord, 'id'>): Reservation {
  const message: Record<string, unknown> = {};
  for (const field of RESERVATION_FIELDS) message[field.name] = record[field.name] ?? undefined;
  return message as unknown as Reservation;
}
