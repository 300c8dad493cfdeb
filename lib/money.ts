/**
 * Money (docs/orders.md "Money"): amounts are integers of the currency's minor units (bigint)
 * from the parse of a decimal string to the answer; percentages are integers of hundredths of
 * a percent. Nothing here is a JavaScript number, so nothing is ever rounded by floating point.
 */

/**
 * The currencies an event may sell in, with their minor digits (ISO 4217): only those with 0
 * or 2. A currency with 3 (BHD, KWD, ...) or 4 is not taken.
 */
export const CURRENCY_DIGITS: Readonly<Record<string, 0 | 2>> = {
  // 0 digits
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  // 2 digits
  AED: 2, ARS: 2, AUD: 2, BAM: 2, BGN: 2, BRL: 2, CAD: 2, CHF: 2, CNY: 2, COP: 2, CZK: 2, DKK: 2, EGP: 2, EUR: 2, GBP: 2, GEL: 2,
  HKD: 2, HUF: 2, IDR: 2, ILS: 2, INR: 2, KES: 2, MAD: 2, MXN: 2, MYR: 2, NGN: 2, NOK: 2, NZD: 2, PEN: 2, PHP: 2, PLN: 2, QAR: 2,
  RON: 2, RSD: 2, SAR: 2, SEK: 2, SGD: 2, THB: 2, TRY: 2, TWD: 2, UAH: 2, USD: 2, ZAR: 2,
};

export const DEFAULT_CURRENCY = 'EUR';

export const isCurrency = (code: string): boolean => Object.hasOwn(CURRENCY_DIGITS, code);

export function currencyDigits(currency: string): 0 | 2 {
  if (!isCurrency(currency)) throw new Error(`not a currency of the table: ${currency}`);
  return CURRENCY_DIGITS[currency]!;
}

const DECIMAL = /^(-?)(\d{1,16})(?:\.(\d{1,16}))?$/;

/** A decimal string in units of 10^-scale, or undefined when it has more than `scale` decimals (or is no decimal). */
function scaled(text: string, scale: number): bigint | undefined {
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  let fraction = match[3] ?? '';
  while (fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  if (fraction.length > scale) return undefined;
  const value = BigInt(match[2]!) * 10n ** BigInt(scale) + BigInt(fraction.padEnd(scale, '0') || '0');
  return match[1] === '-' ? -value : value;
}

/** An amount (a decimal string) in minor units of `currency`; undefined when it has more decimals than the currency. */
export function toMinor(text: string, currency: string): bigint | undefined {
  return scaled(text, currencyDigits(currency));
}

/** Minor units as a decimal string with exactly the currency's digits: 2100n EUR -> "21.00", 1650n JPY -> "1650". */
export function fromMinor(minor: bigint, currency: string): string {
  const digits = currencyDigits(currency);
  const negative = minor < 0n;
  const text = (negative ? -minor : minor).toString().padStart(digits + 1, '0');
  const whole = digits ? `${text.slice(0, -digits)}.${text.slice(-digits)}` : text;
  return negative ? `-${whole}` : whole;
}

/** A percentage (a decimal string of at most 2 decimals, as the tables allow) in hundredths of a percent: "2.5" -> 250n. */
export function toHundredths(percentage: string): bigint {
  const value = scaled(percentage, 2);
  if (value === undefined) throw new Error(`not a percentage of at most 2 decimals: ${percentage}`);
  return value;
}

/** numerator / denominator rounded half away from zero (denominator > 0). */
export function roundHalfAway(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n;
  const magnitude = negative ? -numerator : numerator;
  const rounded = (2n * magnitude + denominator) / (2n * denominator);
  return negative ? -rounded : rounded;
}

/** What a ticket says about the price of one unit (its fields as stored: decimal strings). */
export interface TicketPricing {
  min_price: string | null;
  vat_percentage: string;
  percentage_service_costs_in_ticket: string;
  include_service_cost_in_price: boolean;
}

/** The money of one unit, in minor units, each value rounded once. */
export interface UnitPrice {
  unit_price: bigint;
  unit_discount: bigint;
  unit_service_costs: bigint;
  unit_total: bigint;
  /** The VAT rate, as the ticket's decimal string. */
  vat_percentage: string;
  unit_vat: bigint;
}

/** A line's money: its unit values, and those times the line's amount. */
export interface LinePrice extends UnitPrice {
  discount: bigint;
  service_costs: bigint;
  vat: bigint;
  total: bigint;
}

export interface VatShare {
  vat_percentage: string;
  total: bigint;
  vat: bigint;
  net: bigint;
}

export interface OrderTotals {
  subtotal: bigint;
  discount: bigint;
  service_costs: bigint;
  vat: bigint;
  total: bigint;
  /** One entry per VAT rate, ordered by rate. */
  vat_breakdown: VatShare[];
}

/**
 * The price of one unit of a ticket in `currency`: q = unit_price - unit_discount; service
 * costs round(q x p / 100); unit_total q, plus the service costs when they are not included;
 * unit_vat round(unit_total x v / (100 + v)), the VAT included in it.
 */
export function unitPrice(ticket: TicketPricing, currency: string, unitDiscount = 0n): UnitPrice {
  const unit_price = ticket.min_price === null ? 0n : toMinor(ticket.min_price, currency);
  if (unit_price === undefined) throw new Error(`min_price ${ticket.min_price} has more digits than ${currency}`);
  const q = unit_price - unitDiscount;
  const unit_service_costs = roundHalfAway(q * toHundredths(ticket.percentage_service_costs_in_ticket), 10_000n);
  const unit_total = ticket.include_service_cost_in_price ? q : q + unit_service_costs;
  const v = toHundredths(ticket.vat_percentage);
  const unit_vat = roundHalfAway(unit_total * v, 10_000n + v);
  return { unit_price, unit_discount: unitDiscount, unit_service_costs, unit_total, vat_percentage: ticket.vat_percentage, unit_vat };
}

/** A coupon's discount: its type and value as stored (a decimal string: a percentage, or an amount of the currency). */
export interface Discount {
  type: 'percentage' | 'fixed' | 'price' | 'none';
  value: string | null;
}

/**
 * The discount on one unit of `unitPrice` minor units: percentage round(unit_price x value /
 * 100); fixed min(value, unit_price); price (the unit costs value) max(0, unit_price - value);
 * none 0. Never more than the unit price, never below 0.
 */
export function unitDiscount(discount: Discount, unitPrice: bigint, currency: string): bigint {
  if (discount.type === 'none' || discount.value === null) return 0n;
  if (discount.type === 'percentage') return roundHalfAway(unitPrice * toHundredths(discount.value), 10_000n);
  const value = toMinor(discount.value, currency);
  if (value === undefined) throw new Error(`a coupon value of ${discount.value} has more digits than ${currency}`);
  if (discount.type === 'fixed') return value < unitPrice ? value : unitPrice;
  return unitPrice > value ? unitPrice - value : 0n;
}

/** The price of one unit of a ticket with a coupon's discount (none: 0) applied before its service costs. */
export function discountedUnitPrice(ticket: TicketPricing, currency: string, discount: Discount | null): UnitPrice {
  const full = unitPrice(ticket, currency);
  return discount ? unitPrice(ticket, currency, unitDiscount(discount, full.unit_price, currency)) : full;
}

/** A line of `amount` units: every unit value times the amount (never rounded again). */
export function linePrice(unit: UnitPrice, amount: number): LinePrice {
  const n = BigInt(amount);
  return { ...unit, discount: unit.unit_discount * n, service_costs: unit.unit_service_costs * n, vat: unit.unit_vat * n, total: unit.unit_total * n };
}

/** The totals of an order: each the sum over its lines; the VAT per rate, ordered by rate. */
export function orderTotals(lines: ReadonlyArray<{ price: LinePrice; amount: number }>): OrderTotals {
  const sum = (pick: (line: { price: LinePrice; amount: number }) => bigint) => lines.reduce((total, line) => total + pick(line), 0n);
  const byRate = new Map<bigint, VatShare>();
  for (const { price } of lines) {
    const rate = toHundredths(price.vat_percentage);
    const share = byRate.get(rate) ?? { vat_percentage: price.vat_percentage, total: 0n, vat: 0n, net: 0n };
    share.total += price.total;
    share.vat += price.vat;
    share.net = share.total - share.vat;
    byRate.set(rate, share);
  }
  return {
    subtotal: sum((line) => line.price.unit_price * BigInt(line.amount)),
    discount: sum((line) => line.price.discount),
    service_costs: sum((line) => line.price.service_costs),
    vat: sum((line) => line.price.vat),
    total: sum((line) => line.price.total),
    vat_breakdown: [...byRate.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, share]) => share),
  };
}
