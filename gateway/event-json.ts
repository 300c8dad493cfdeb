import type { Event } from '../lib/gen/ticketing/v1/event.js';
import { formatTimestamp } from '../lib/time.js';

/** The event object of PRODUCT.md section 5, exactly these fields in this order. */
export function eventJson(e: Event) {
  return {
    guid: e.guid,
    company_id: e.company_id,
    name: e.name ?? null,
    description: e.description ?? null,
    start: formatTimestamp(e.start),
    end: formatTimestamp(e.end),
    status: e.status,
    created_at: formatTimestamp(e.created_at),
    updated_at: formatTimestamp(e.updated_at),
    deleted_at: formatTimestamp(e.deleted_at),
  };
}
