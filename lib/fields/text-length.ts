/**
 * Text lengths as the databases count them: in Unicode code points (MySQL utf8mb4 VARCHAR(n)
 * holds n of them), so an emoji is one character everywhere a limit is checked or documented.
 */
export function codePoints(value: string): number {
  let count = 0;
  for (const _ of value) count += 1;
  return count;
}

/** The problem of a text over its kind's limit: one wording for the gateway's cap and the services' rules. */
export const tooLong = (max: number): string => `must be at most ${max} characters`;

/**
 * Whether a text has more than `max` code points, decided without walking a text that cannot
 * fit (a UTF-16 string of more than 2 x max units has more than max code points), so a 1 MiB
 * value costs nothing to refuse. Every length check runs before any pattern (issue 32, item 1).
 */
export function longerThan(value: string, max: number): boolean {
  if (value.length <= max) return false;
  if (value.length > 2 * max) return true;
  return codePoints(value) > max;
}
