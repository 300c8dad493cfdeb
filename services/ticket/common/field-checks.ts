import { INT32_MAX } from '../../../lib/fields/kinds.js';
import { isEmail } from '../../../lib/fields/email.js';
import { longerThan, tooLong } from '../../../lib/fields/text-length.js';
import { isCurrency } from '../../../lib/money.js';

/** Value checks shared by the event and ticket rules; each returns the problem, or undefined when the value is fine. */

/** The DATETIME range of MySQL, in whole UTC days. */
const EARLIEST = Date.UTC(1000, 0, 1);
const LATEST = Date.UTC(10000, 0, 1);

export function checkText(value: string, rule: { max?: number; notBlank?: boolean; format?: 'email' | 'url' | 'currency' }): string | undefined {
  if (rule.notBlank && value.trim() === '') return 'must not be blank';
  // The length before any pattern (issue 32, item 1).
  if (rule.max !== undefined && longerThan(value, rule.max)) return tooLong(rule.max);
  // A URL's rules are the webhook targets' (lib/webhooks/targets.ts).
  if (rule.format === 'email' && !isEmail(value)) return 'must be an e-mail address';
  if (rule.format === 'currency' && !isCurrency(value)) return 'must be an ISO 4217 code of a currency with 0 or 2 minor digits, such as EUR, USD, GBP or JPY';
  return undefined;
}

export function checkInteger(value: number, min: number, max = INT32_MAX): string | undefined {
  if (!Number.isInteger(value) || value < min || value > max) return `must be a whole number from ${min} to ${max}`;
  return undefined;
}

/** The problem of a value an enumeration lacks. */
export function notInEnum(allowed: readonly string[]): string {
  return `must be one of ${allowed.join(', ')}`;
}

export function checkTimestamp(value: Date): string | undefined {
  const time = value.getTime();
  if (Number.isNaN(time) || time < EARLIEST || time >= LATEST) return 'must be a date-time between the years 1000 and 9999';
  return undefined;
}

/** Timestamps of responses have second precision, so a timestamp sent back is compared at that precision. */
export function sameSecond(a: Date, b: Date): boolean {
  return Math.floor(a.getTime() / 1000) === Math.floor(b.getTime() / 1000);
}

export function sameGuid(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
