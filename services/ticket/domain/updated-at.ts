/**
 * updated_at moves visibly on every update (docs/ticket-api.md "Responses"): it becomes
 * the current time, or one second after the previous updated_at when the current time
 * would not show a change at second precision, i.e. when previous >= the start of the
 * current second. The store applies this rule inside the UPDATE statement (so that it
 * holds under concurrent updates too), with this threshold.
 */
export function visibleChangeThreshold(now: Date): Date {
  return new Date(Math.floor(now.getTime() / 1000) * 1000);
}

