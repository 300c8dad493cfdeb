/** The event's fields (PRODUCT.md section 5) and their roles on create and update. */

export interface EventValues {
  name: string;
  description: string | null;
  start: Date | null;
  end: Date | null;
}

export type WritableEventField = keyof EventValues;

export interface EventRecord extends EventValues {
  /** Creation order; the key of keyset paging. Never leaves the service. */
  id: number;
  guid: string;
  company_id: string;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  version: number;
}

export const WRITABLE_EVENT_FIELDS: readonly WritableEventField[] = ['name', 'description', 'start', 'end'];
export const SERVER_MANAGED_EVENT_FIELDS = ['guid', 'company_id', 'created_at', 'deleted_at'] as const;
export type ServerManagedEventField = (typeof SERVER_MANAGED_EVENT_FIELDS)[number];
export const IGNORED_EVENT_FIELDS = ['status', 'updated_at'] as const;

/** Every event reads with this status. */
export const EVENT_STATUS = 'normal';
