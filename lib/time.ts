/** The one timestamp format of every response: YYYY-MM-DDTHH:MM:SS+00:00 (UTC, numeric offset). */
export function formatTimestamp(date: Date | undefined | null): string | null {
  if (!date) return null;
  return date.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** Parses a client timestamp; it must carry an offset (Z or +HH:MM). Returns undefined when it is not one. */
export function parseTimestamp(value: string): Date | undefined {
  if (!WITH_OFFSET.test(value.trim())) return undefined;
  const date = new Date(value.trim());
  return Number.isNaN(date.getTime()) ? undefined : date;
}
