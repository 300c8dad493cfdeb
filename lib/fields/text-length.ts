/**
 * Text lengths as the databases count them: in Unicode code points (MySQL utf8mb4 VARCHAR(n)
 * holds n of them), so an emoji is one character everywhere a limit is checked or documented.
 */
export function codePoints(value: string): number {
  let count = 0;
  for (const _ of value) count += 1;
  return count;
}
