import { randomInt } from 'node:crypto';
import type { FieldViolation } from '../../../lib/grpc/errors.js';
import type { FieldDef } from '../../../lib/fields/kinds.js';
import { MAX_UNITS_PER_ORDER } from '../../../lib/fields/reservation.js';
import { checkValue } from '../catalogue/field-rules.js';

/** The value rules of the stock moves (PRODUCT.md 9) beyond each body field's own (lib/fields/reservation.ts). */

/** A body field's value by its row (`field` is its name), or its default when unset. */
export function checkMoveField<T>(field: string, def: FieldDef, raw: T | undefined): { value: T; violations: FieldViolation[] } {
  const fallback = def.default as T;
  if (raw === undefined) return { value: fallback, violations: [] };
  const checked = checkValue(def, raw);
  return 'error' in checked ? { value: fallback, violations: [{ field, description: checked.error }] } : { value: raw, violations: [] };
}

export interface OrderRules {
  min_orderable_amount_per_order: number;
  max_orderable_amount_per_order: number;
  increment: number;
}

/** The amount of one reservation (or order line) against its ticket's rules; a ticket of before the limit still never sells more than MAX_UNITS_PER_ORDER at once. */
export function checkAmount(amount: number, rules: OrderRules): FieldViolation[] {
  const min = Math.max(1, rules.min_orderable_amount_per_order);
  const max = Math.min(rules.max_orderable_amount_per_order, MAX_UNITS_PER_ORDER);
  const step = Math.max(1, rules.increment);
  if (!Number.isInteger(amount) || amount < min || amount > max || amount % step !== 0) {
    const multiple = step > 1 ? `, a multiple of ${step}` : '';
    return [{ field: 'amount', description: `must be from ${min} to ${max}${multiple}` }];
  }
  return [];
}

/** No 0/O, 1/I/L: codes read out at a door or typed from paper are not mistaken. */
export const BARCODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
/** 16 characters of 31: about 79 bits, unguessable. */
export const GENERATED_BARCODE_LENGTH = 16;

export function generateBarcode(): string {
  let code = '';
  for (let i = 0; i < GENERATED_BARCODE_LENGTH; i++) code += BARCODE_ALPHABET[randomInt(BARCODE_ALPHABET.length)];
  return code;
}

export const PREDEFINED_BARCODE = { min: 4, max: 64 } as const;
const PRINTABLE = new RegExp(`^[\\x21-\\x7e]{${PREDEFINED_BARCODE.min},${PREDEFINED_BARCODE.max}}$`);

/** The `barcodes` of a confirmation, by the ticket's barcode_type. */
export function checkBarcodes(barcodeType: string, barcodes: readonly string[], amount: number): FieldViolation[] {
  if (barcodeType !== 'predefined') {
    return barcodes.length ? [{ field: 'barcodes', description: `must not be sent: the ticket's barcode_type is ${barcodeType}` }] : [];
  }
  if (barcodes.length !== amount) return [{ field: 'barcodes', description: `must hold exactly ${amount} codes (the reservation's amount)` }];
  if (!barcodes.every((code) => PRINTABLE.test(code))) {
    return [{ field: 'barcodes', description: `each must be ${PREDEFINED_BARCODE.min} to ${PREDEFINED_BARCODE.max} printable characters without spaces` }];
  }
  if (new Set(barcodes).size !== barcodes.length) return [{ field: 'barcodes', description: 'must not repeat a code' }];
  return [];
}
