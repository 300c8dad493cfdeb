import type { Request } from 'express';
import { toMessageFields } from '../lib/fields/messages.js';
import { RESERVATION_FIELDS } from '../lib/fields/reservation.js';

/**
 * The ?state= filter of a reservation or order list as the request's enum: absent is every
 * state; a name the enum lacks, or the parameter sent twice, is UNSPECIFIED, which the
 * service refuses (422 naming state).
 */
export function stateFilter(req: Request): number | undefined {
  const raw = req.query.state;
  if (raw === undefined) return undefined;
  return (toMessageFields(RESERVATION_FIELDS, { state: typeof raw === 'string' ? raw : '' }).state as number | undefined) ?? 0;
}
