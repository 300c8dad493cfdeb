import type { FieldKind } from '../../lib/fields/kinds.js';
import { GUID_PATTERN } from '../../lib/ids.js';
import { HTTP_URL_PATTERN, integersUpTo } from '../../lib/webhooks/url-pattern.js';

/**
 * JSON Schema patterns (ECMA-262, no flags) for what the server reads from text: each is the
 * server's rule or a subset of it, so a value the document allows is never refused for its form.
 */

/** One or two decimals (a shorter one read as its two-digit form) up to `max`, two digits. */
function decimalsUpTo(max: string): string {
  const one = `[0-${max[0]}]`;
  const below = Number(max[0]) > 0 ? [`[0-${Number(max[0]) - 1}]\\d`] : [];
  return `(?:${[...below, `${max[0]}[0-${max[1]}]`, one].join('|')})`;
}

/**
 * A decimal's string form within its kind's range, at most 2 decimals (lib/fields/decimal.ts
 * reads more: signs, spaces, trailing zeros; this is the plain form). Only ranges from 0 are
 * spelled out; another lower bound keeps the form without the range.
 */
export function decimalPattern(kind: Extract<FieldKind, { type: 'decimal' }>): string {
  const form = '^\\d+(?:\\.\\d{1,2})?$';
  if (kind.min !== '0' || !/^\d+(\.\d{1,2})?$/.test(kind.max)) return form;
  const [whole, fraction = ''] = kind.max.split('.');
  const cents = fraction.padEnd(2, '0');
  const anyDecimals = '(?:\\.\\d{1,2})?';
  if (cents === '99') return `^(?:${integersUpTo(whole!).join('|')})${anyDecimals}$`;
  const belowWhole = whole === '0' ? [] : integersUpTo((BigInt(whole!) - 1n).toString());
  const alternatives = [...(belowWhole.length ? [`(?:${belowWhole.join('|')})${anyDecimals}`] : []), `${whole}(?:\\.${decimalsUpTo(cents)})?`];
  return `^(?:${alternatives.join('|')})$`;
}

/** A date-time as the ticket service takes it: RFC 3339 with an offset, a year from 1000 (lib/time.ts; domain/field-checks.ts). */
export const TIMESTAMP_PATTERN = '^[1-9]\\d{3}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,9})?(?:Z|[+-]\\d{2}:\\d{2})$';

/** A webhook URL's form: the service's own pattern (lib/webhooks/url-pattern.ts). */
export { HTTP_URL_PATTERN };

/** A header value an HTTP client can send: visible ASCII and spaces. */
export const HEADER_TEXT_PATTERN = '^[\\x20-\\x7e]*$';

/** The Company header: comma-separated company GUIDs or * (lib/effective-companies.ts), spaces around them (no tabs: gateway/request-context.ts). */
const COMPANY_ITEM = `(?:\\*|${GUID_PATTERN})`;
export const COMPANY_HEADER_PATTERN = `^ *${COMPANY_ITEM}(?: *, *${COMPANY_ITEM})* *$`;

/** At least one character that is not white space ("not blank": the services trim, then check). */
export const NOT_BLANK_PATTERN = '\\S';
