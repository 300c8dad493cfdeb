import { HOLDER_FIELDS, type Holder } from '../../../lib/fields/holder.js';
import { MAX_UNITS_PER_ORDER } from '../../../lib/fields/reservation.js';
import type { FieldViolation } from '../../../lib/grpc/errors.js';
import { nestedViolations } from '../catalogue/field-rules.js';

/** The rules of a barcode's holder (PRODUCT.md 12 "Holders", docs/orders.md). */

/** A holder as taken: surrounding spaces trimmed. */
const taken = (holder: Holder): Holder => ({ name: holder.name.trim(), email: holder.email.trim() });

/** One holder by HOLDER_FIELDS; violations named `<field>.name`, `<field>.email`. */
export function checkHolder(field: string, sent: Holder): { holder: Holder; violations: FieldViolation[] } {
  const holder = taken(sent);
  return { holder, violations: nestedViolations(HOLDER_FIELDS, { ...holder }).map((v) => ({ field: `${field}.${v.field}`, description: v.description })) };
}

/** The holders of a confirmation's line: at most one per barcode it issues (`barcodes`), each valid. */
export function checkHolders(sent: readonly Holder[], barcodes: number): { holders: Holder[]; violations: FieldViolation[] } {
  const tooMany = { field: 'holders', description: `must hold at most ${barcodes}: one per barcode the line issues` };
  // A list past its limit is refused before it is walked; within it, every holder is checked.
  if (sent.length > MAX_UNITS_PER_ORDER) return { holders: [], violations: [tooMany] };
  const checked = sent.map((holder, j) => checkHolder(`holders[${j}]`, holder));
  const violations = checked.flatMap((c) => c.violations);
  if (sent.length > barcodes) violations.unshift(tooMany);
  return { holders: checked.map((c) => c.holder), violations };
}

export const sameHolder = (a: Holder | null, b: Holder | null): boolean => (a === null || b === null ? a === b : a.name === b.name && a.email === b.email);

/**
 * Why a barcode's holder may not go from `current` to `next` (a different one), or undefined
 * when it may: naming a first holder needs the ticket's late_personalization, any other change
 * (another holder, or none) its swappable.
 */
export function holderChangeRefusal(ticket: { late_personalization: boolean; swappable: boolean }, current: Holder | null): string | undefined {
  if (current === null) return ticket.late_personalization ? undefined : 'A holder can be named after the sale only for a ticket with late_personalization.';
  return ticket.swappable ? undefined : 'The holder can be changed or cleared only for a swappable ticket.';
}
