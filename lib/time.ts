/** The one timestamp format of every response: YYYY-MM-DDTHH:MM:SS+00:00 (UTC, numeric offset). */
export function formatTimestamp(date: Date | undefined | null): string | null {
  if (!date) return null;
  // toISOString always ends in .mmmZ (also for the expanded years beyond 9999).
  return `${date.toISOString().slice(0, -5)}+00:00`;
}

/**
 * The accepted shape: date, `T` (or a space), hours and minutes, optional seconds with an
 * optional fraction of up to 9 digits, and an offset (`Z`, `+HH:MM` or `+HHMM`). Only the
 * shape: the ranges of the components are checked by parseTimestamp.
 */
const SHAPE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):?(\d{2}))$/i;

const MAX_OFFSET_HOURS = 14;

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Parses a client timestamp; it must carry an offset (Z or +HH:MM). Returns undefined when
 * it is not one, including impossible dates and times (2027-02-30, 24:00, 10:60, a leap
 * second, an offset beyond +-14:00): nothing is rolled over into the next day or month.
 * The fraction is kept to the millisecond (further digits are dropped). Any four-digit
 * year parses; the service decides which years it stores.
 */
export function parseTimestamp(value: string): Date | undefined {
  const match = SHAPE.exec(value.trim());
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = s === undefined ? 0 : Number(s);
  if (month < 1 || month > 12) return undefined;
  if (day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (!zulu) {
    const offsetHours = Number(oh);
    const offsetMins = Number(om);
    if (offsetHours > MAX_OFFSET_HOURS || offsetMins > 59) return undefined;
    offsetMinutes = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const millisecond = fraction === undefined ? 0 : Number(fraction.padEnd(3, '0').slice(0, 3));
  // setUTCFullYear, not Date.UTC: Date.UTC maps the years 0..99 to 1900..1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millisecond);
  return new Date(date.getTime() - offsetMinutes * 60_000);
}
