import { randomUUID } from 'node:crypto';

/** A GUID in either case, as a regular expression's source (the OpenAPI document's patterns are built from it). */
export const GUID_PATTERN = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const GUID = new RegExp(`^${GUID_PATTERN}$`);

/** An Idempotency-Key (a request's request_id): 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export function isGuid(value: string): boolean {
  return GUID.test(value);
}

export function newGuid(): string {
  return randomUUID();
}
