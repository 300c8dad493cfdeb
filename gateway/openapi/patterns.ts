import type { FieldKind } from '../../lib/fields/kinds.js';
import { GUID_PATTERN } from '../../lib/ids.js';

/**
 * JSON Schema patterns (ECMA-262, no flags) for what the server reads from text: each is the
 * server's rule or a subset of it, so a value the document allows is never refused for its form.
 */

/** Non-negative integers without leading zeros, up to `max` (a digit string): the usual digit-by-digit alternation. */
function integersUpTo(max: string): string[] {
  const alternatives: string[] = [];
  if (max.length >= 2) alternatives.push('0', `[1-9]\\d{0,${max.length - 2}}`);
  for (let i = 0; i < max.length; i++) {
    const lowest = i === 0 && max.length > 1 ? 1 : 0;
    const digit = Number(max[i]);
    if (digit > lowest) alternatives.push(`${max.slice(0, i)}[${lowest}-${digit - 1}]${'\\d'.repeat(max.length - 1 - i)}`);
  }
  alternatives.push(max);
  return alternatives;
}

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

/**
 * An absolute http or https URL of a named host without user name or password
 * (lib/webhooks/targets.ts: urlProblem). A host's last label starts with a letter, so it is
 * never read as an IPv4 address; a port is at most 65535.
 */
export const HTTP_URL_PATTERN =
  `^[Hh][Tt][Tt][Pp][Ss]?://(?:[A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*(?::(?:${integersUpTo('65535').join('|')}))?(?:[/?#][\\x21-\\x7e]*)?$`;

/** The Company header: comma-separated company GUIDs or * (lib/effective-companies.ts). */
const COMPANY_ITEM = `(?:\\*|${GUID_PATTERN})`;
export const COMPANY_HEADER_PATTERN = `^[ \\t]*${COMPANY_ITEM}(?:[ \\t]*,[ \\t]*${COMPANY_ITEM})*[ \\t]*$`;

/** At least one character that is not white space ("not blank": the services trim, then check). */
export const NOT_BLANK_PATTERN = '\\S';
