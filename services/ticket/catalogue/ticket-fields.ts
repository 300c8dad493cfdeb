import type { FieldsWithRole, ValuesOf } from '../../../lib/fields/kinds.js';
import type { TICKET_FIELDS } from '../../../lib/fields/ticket.js';

/** The ticket's types, derived from its field table (lib/fields/ticket.ts). */

type Table = typeof TICKET_FIELDS;

/** The fields a client may set, at creation and with PUT. */
export type TicketValues = ValuesOf<Table, 'writable'>;

export type WritableTicketField = FieldsWithRole<Table, 'writable'>;

/** A stored ticket: every stored field, plus what never leaves the service. */
export type TicketRecord = ValuesOf<Table, 'writable' | 'server-managed' | 'ignored'> & {
  /** Creation order; the key of keyset paging. */
  id: number;
  /** Bumped by every change; the etag is derived from it. */
  version: number;
};
