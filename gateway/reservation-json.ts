import type { Reservation, Scan } from '../lib/gen/ticketing/v1/reservation.js';
import { formatTimestamp } from '../lib/time.js';
import { RESERVATION_FIELDS, SCAN_FIELDS, type ObjectField } from '../services/ticket/domain/reservation-fields.js';

/** A message field as JSON, by its kind in the one field list. */
function fieldJson(field: ObjectField, value: unknown): unknown {
  if (field.kind === 'timestamp') return formatTimestamp(value as Date | undefined);
  if (field.kind === 'text-list') return value ?? [];
  return value ?? null;
}

function objectJson(fields: readonly ObjectField[], message: object): Record<string, unknown> {
  const values = message as Record<string, unknown>;
  return Object.fromEntries(fields.map((field) => [field.name, fieldJson(field, values[field.name])]));
}

/** The reservation object of PRODUCT.md 9: exactly its ten fields. */
export const reservationJson = (reservation: Reservation) => objectJson(RESERVATION_FIELDS, reservation);

export const scanJson = (scan: Scan) => objectJson(SCAN_FIELDS, scan);
