import { describe, expect, it } from 'vitest';
import { systemClock, TestClock } from '../lib/clock.js';
import { formatTimestamp, parseTimestamp } from '../lib/time.js';

const iso = (value: string) => parseTimestamp(value)?.toISOString();

describe('parseTimestamp: valid timestamps', () => {
  const VALID: Array<[string, string]> = [
    ['2030-01-01T10:00:00Z', '2030-01-01T10:00:00.000Z'],
    ['2030-01-01T10:00:00+00:00', '2030-01-01T10:00:00.000Z'],
    ['2030-01-01T10:00:00-00:00', '2030-01-01T10:00:00.000Z'],
    ['2031-01-01T00:00:00+01:00', '2030-12-31T23:00:00.000Z'],
    ['2031-01-01T00:00:00-0530', '2031-01-01T05:30:00.000Z'],
    ['2030-06-15T12:00:00+14:00', '2030-06-14T22:00:00.000Z'],
    ['2030-06-15T12:00:00-12:00', '2030-06-16T00:00:00.000Z'],
    ['2030-06-15T12:00:00-14:00', '2030-06-16T02:00:00.000Z'],
    ['2030-06-15T12:00:00+05:45', '2030-06-15T06:15:00.000Z'],
    ['2030-06-15T12:00:00+14:59', '2030-06-14T21:01:00.000Z'],
    // leap years: divisible by 4, by 400; Feb 29 exists
    ['2028-02-29T00:00:00Z', '2028-02-29T00:00:00.000Z'],
    ['2000-02-29T12:00:00Z', '2000-02-29T12:00:00.000Z'],
    ['2400-02-29T12:00:00Z', '2400-02-29T12:00:00.000Z'],
    // the last day of each month
    ['2027-01-31T00:00:00Z', '2027-01-31T00:00:00.000Z'],
    ['2027-02-28T00:00:00Z', '2027-02-28T00:00:00.000Z'],
    ['2027-04-30T00:00:00Z', '2027-04-30T00:00:00.000Z'],
    ['2027-12-31T23:59:59Z', '2027-12-31T23:59:59.000Z'],
    ['2027-12-31T23:59:59+00:00', '2027-12-31T23:59:59.000Z'],
    ['2027-01-01T00:00:00Z', '2027-01-01T00:00:00.000Z'],
    // fractions up to 9 digits, kept to the millisecond
    ['2030-01-01T10:00:00.1Z', '2030-01-01T10:00:00.100Z'],
    ['2030-01-01T10:00:00.123Z', '2030-01-01T10:00:00.123Z'],
    ['2030-01-01T10:00:00.123456789Z', '2030-01-01T10:00:00.123Z'],
    ['2030-01-01T10:00:00.999999999+01:00', '2030-01-01T09:00:00.999Z'],
    // as before: lower case t/z, a space for T, seconds optional, surrounding blanks
    ['2030-01-01t10:00:00z', '2030-01-01T10:00:00.000Z'],
    ['2030-01-01 10:00:00Z', '2030-01-01T10:00:00.000Z'],
    ['2030-01-01T10:00Z', '2030-01-01T10:00:00.000Z'],
    [' 2030-01-01T10:00:00Z ', '2030-01-01T10:00:00.000Z'],
    // every four-digit year parses (the service decides on 1000..9999), with no 19xx mapping
    ['1000-01-01T00:00:00Z', '1000-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59Z', '9999-12-31T23:59:59.000Z'],
    ['0050-06-01T00:00:00Z', '0050-06-01T00:00:00.000Z'],
  ];
  for (const [input, expected] of VALID) {
    it(JSON.stringify(input), () => {
      expect(iso(input)).toBe(expected);
    });
  }

  it('an offset that carries the instant past the year 9999 still parses (the service refuses it)', () => {
    expect(parseTimestamp('9999-12-31T23:00:00-02:00')!.getTime()).toBe(Date.UTC(10000, 0, 1, 1));
  });

  it('round-trips through formatTimestamp', () => {
    expect(formatTimestamp(parseTimestamp('2031-07-01T14:00:00+02:00'))).toBe('2031-07-01T12:00:00+00:00');
  });

  it('formatTimestamp drops the milliseconds, in every year JavaScript can show', () => {
    expect(formatTimestamp(new Date(Date.UTC(2031, 6, 1, 12, 0, 0, 999)))).toBe('2031-07-01T12:00:00+00:00');
    expect(formatTimestamp(new Date(Date.UTC(10000, 0, 1, 1)))).toBe('+010000-01-01T01:00:00+00:00');
    expect(formatTimestamp(new Date('0001-01-01T00:00:00.5Z'))).toBe('0001-01-01T00:00:00+00:00');
    expect(formatTimestamp(undefined)).toBeNull();
  });
});

describe('parseTimestamp: invalid timestamps are undefined, never rolled over', () => {
  const INVALID: string[] = [
    // days that do not exist
    '2027-02-29T00:00:00Z', // not a leap year
    '2100-02-29T00:00:00Z', // divisible by 100, not by 400
    '2028-02-30T00:00:00Z',
    '2027-02-30T00:00:00Z',
    '2027-04-31T10:00:00Z',
    '2027-06-31T10:00:00Z',
    '2027-09-31T10:00:00Z',
    '2027-11-31T10:00:00Z',
    '2027-01-32T00:00:00Z',
    '2027-01-00T00:00:00Z',
    // months
    '2027-00-10T00:00:00Z',
    '2027-13-10T00:00:00Z',
    '2030-13-45T10:00:00Z',
    // times
    '2027-04-30T24:00:00Z',
    '2027-04-31T24:00:00Z',
    '2027-04-30T25:00:00Z',
    '2027-04-30T10:60:00Z',
    '2027-04-30T10:00:60Z',
    '2027-12-31T23:59:60Z',
    '2027-04-30T10:00:99Z',
    // fractions
    '2030-01-01T10:00:00.1234567890Z',
    '2030-01-01T10:00:00.Z',
    '2030-01-01T10:00.5Z',
    // offsets
    '2030-06-15T12:00:00+15:00',
    '2030-06-15T12:00:00-15:00',
    '2030-06-15T12:00:00+14:60',
    '2030-06-15T12:00:00+0960',
    '2030-06-15T12:00:00+1',
    '2030-06-15T12:00:00+01',
    '2030-06-15T12:00:00+01:0',
    '2030-06-15T12:00:00 +01:00',
    // no offset, or not a timestamp at all
    '2030-01-01T10:00:00',
    '2030-01-01 10:00:00',
    '2030-01-01',
    '2030-1-1T10:00:00Z',
    '2030-01-01T1:00:00Z',
    '12030-01-01T10:00:00Z',
    '+002030-01-01T10:00:00Z',
    'tomorrow',
    '',
    'Wed, 01 Jan 2030 10:00:00 GMT',
  ];
  for (const input of INVALID) {
    it(JSON.stringify(input), () => {
      expect(parseTimestamp(input)).toBeUndefined();
    });
  }
});

describe('the clocks of lib/clock.ts', () => {
  it('the system clock is real time; a test clock is real time plus an offset that only grows', () => {
    const before = Date.now();
    expect(systemClock.now().getTime()).toBeGreaterThanOrEqual(before);
    expect(systemClock.now().getTime()).toBeLessThanOrEqual(Date.now());
    const clock = new TestClock();
    expect(Math.abs(clock.now().getTime() - Date.now())).toBeLessThan(50);
    clock.advance(60_000);
    expect(clock.now().getTime() - Date.now()).toBeGreaterThanOrEqual(59_950);
    clock.advanceTo(Date.now() + 120_000);
    expect(clock.now().getTime() - Date.now()).toBeGreaterThanOrEqual(119_950);
    // Never back: an earlier time leaves it where it is, a negative step is refused.
    const at = clock.now().getTime();
    clock.advanceTo('2001-01-01T00:00:00Z');
    expect(clock.now().getTime()).toBeGreaterThanOrEqual(at);
    expect(() => clock.advance(-1)).toThrow(/only moves forward/);
    expect(() => clock.advanceTo('not a time')).toThrow(/not a time/);
  });
});
