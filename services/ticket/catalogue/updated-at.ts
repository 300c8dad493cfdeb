/**
 * updated_at moves visibly on every update without running ahead of the clock
 * (docs/ticket-api.md "Responses"). With T the start of the current second:
 *
 * - previous < T (an earlier second): the current time;
 * - T <= previous <= now (the current second): previous + 1 s, which shows the change at
 *   second precision (it lies in the next second);
 * - now < previous < T + 1 s (the current second, written by a concurrent update that read
 *   the clock later): now + 1 s, so never more than 1 s ahead of the current time;
 * - previous >= T + 1 s (already a second ahead): unchanged; the ETag still changes.
 *
 * The result is never before the previous value. The store applies this rule inside the
 * UPDATE statement (so that it also holds under concurrent updates), with these bounds;
 * nextUpdatedAt is the same rule on values, for reference and unit tests.
 */
export interface UpdatedAtBounds {
  /** The start of the current second: a previous value before it is simply replaced by now. */
  visibleFrom: Date;
  /** The start of the next second: a previous value at or after it is already a second ahead and stays. */
  aheadFrom: Date;
  now: Date;
  /** The cap of previous + 1 s. */
  nowPlusOneSecond: Date;
}

export function updatedAtBounds(now: Date): UpdatedAtBounds {
  const second = Math.floor(now.getTime() / 1000) * 1000;
  return {
    visibleFrom: new Date(second),
    aheadFrom: new Date(second + 1000),
    now,
    nowPlusOneSecond: new Date(now.getTime() + 1000),
  };
}

export function nextUpdatedAt(previous: Date, now: Date): Date {
  const bounds = updatedAtBounds(now);
  const prev = previous.getTime();
  if (prev < bounds.visibleFrom.getTime()) return now;
  if (prev <= now.getTime()) return new Date(prev + 1000);
  if (prev < bounds.aheadFrom.getTime()) return bounds.nowPlusOneSecond;
  return previous;
}
