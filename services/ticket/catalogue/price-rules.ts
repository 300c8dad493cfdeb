import type { FieldViolation } from '../../../lib/grpc/errors.js';
import { currencyDigits, toMinor } from '../../../lib/money.js';

/** A ticket's min_price in its event's currency: at most the currency's digits (JPY: whole numbers). */
export function priceViolations(minPrice: string | null | undefined, currency: string): FieldViolation[] {
  if (minPrice === null || minPrice === undefined || toMinor(minPrice, currency) !== undefined) return [];
  const digits = currencyDigits(currency);
  return [{ field: 'min_price', description: `must have at most ${digits} decimals: the event's currency is ${currency}` }];
}
