import { isGuid } from '../../../lib/ids.js';

/** A GUID from a request in its stored (lower-case) form, or undefined when it is not a GUID (which reads as not found). */
export function storedGuid(value: string): string | undefined {
  const trimmed = value.trim();
  return isGuid(trimmed) ? trimmed.toLowerCase() : undefined;
}
