/**
 * When attempt `attempts + 1` is due after `attempts` failed ones: the schedule's delay for
 * it (WEBHOOK_RETRY_SCHEDULE, the delays after the 1st, 2nd, ... attempt) plus up to 20 %
 * jitter (never less, so the schedule's total is a floor), or null when the schedule is
 * spent and the delivery has failed.
 */
export function retryAt(schedule: readonly number[], attempts: number, now: Date, random: () => number = Math.random): Date | null {
  const delay = schedule[attempts - 1];
  if (delay === undefined) return null;
  return new Date(now.getTime() + Math.round(delay * (1 + 0.2 * random())));
}
