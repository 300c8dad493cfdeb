import { randomInt } from 'node:crypto';
import { AMOUNT_TYPES, CODE_PATTERN, PERCENTAGE_MAX, PREFIX_MAX, PREFIX_PATTERN, type DiscountType } from '../../../lib/fields/coupon.js';
import type { FieldViolation } from '../../../lib/grpc/errors.js';
import { currencyDigits, toHundredths, toMinor } from '../../../lib/money.js';
import { BARCODE_ALPHABET } from '../sales/reservation-rules.js';

/** The coupon's rules beyond each field's own (PRODUCT.md 15, docs/coupons.md). */

/**
 * `value` by `discount_type`: percentage 0..100 (at most 2 decimals: the field's own rule);
 * fixed and price an amount with at most the currency's minor digits; required for those
 * three; null for none. Its range and sign are the field's own rule.
 */
export function couponValueViolations(type: DiscountType, value: string | null, currency: string): FieldViolation[] {
  const violation = (description: string) => [{ field: 'value', description }];
  if (type === 'none') return value === null ? [] : violation('must be null when discount_type is none');
  if (value === null) return violation(`is required when discount_type is ${type}`);
  if (type === 'percentage') return toHundredths(value) > toHundredths(PERCENTAGE_MAX) ? violation(`must be between 0 and ${PERCENTAGE_MAX} when discount_type is percentage`) : [];
  return amountFits(value, currency) ? [] : violation(`must have at most ${currencyDigits(currency)} decimals: the event's currency is ${currency}`);
}

/** An amount coupon's value in a currency: at most its minor digits. */
export const amountFits = (value: string, currency: string): boolean => toMinor(value, currency) !== undefined;

export const isAmountType = (type: string): boolean => (AMOUNT_TYPES as readonly string[]).includes(type);

/** `ticket_ids`: each once, each a live ticket of the event (`live`: those of the list that are). */
export function ticketIdsViolations(ids: readonly string[], live: ReadonlySet<string>): FieldViolation[] {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) return [{ field: 'ticket_ids', description: `must name each ticket once: ${id} is named twice` }];
    seen.add(id);
    if (!live.has(id)) return [{ field: 'ticket_ids', description: `must name live tickets of the coupon's event: ${id} is not one` }];
  }
  return [];
}

const CODE = new RegExp(CODE_PATTERN);
const PREFIX = new RegExp(PREFIX_PATTERN);

export const CODE_RULE = 'must be 4 to 64 printable ASCII characters without spaces';
export const isCode = (code: string): boolean => CODE.test(code);
export const isPrefix = (prefix: string): boolean => PREFIX.test(prefix);
export const PREFIX_RULE = `must be 0 to ${PREFIX_MAX} printable ASCII characters without spaces`;

/** Codes are unique within the event ignoring case: compared by their key. */
export const codeKey = (code: string): string => code.toLowerCase();

/** Random characters of a generated code after its prefix: 12 of 31, about 59 bits. */
export const GENERATED_CODE_LENGTH = 12;

/** A new code: the prefix, then random characters of the barcodes' unambiguous alphabet. */
export function generateCode(prefix: string): string {
  let code = prefix;
  for (let i = 0; i < GENERATED_CODE_LENGTH; i++) code += BARCODE_ALPHABET[randomInt(BARCODE_ALPHABET.length)];
  return code;
}
