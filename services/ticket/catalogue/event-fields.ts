import type { ValuesOf } from '../../../lib/fields/kinds.js';
import type { EVENT_FIELDS } from '../../../lib/fields/event.js';

/** The event's types, derived from its field table (lib/fields/event.ts). */

type Table = typeof EVENT_FIELDS;

export type EventValues = ValuesOf<Table, 'writable'>;

/** A stored event: every stored field, plus what never leaves the service. */
export type EventRecord = ValuesOf<Table, 'writable' | 'server-managed' | 'ignored'> & {
  /** Creation order; the key of keyset paging. */
  id: number;
  /** Bumped by every change; the etag is derived from it. */
  version: number;
};
