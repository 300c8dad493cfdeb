/**
 * Exact decimals as canonical strings: no exponent, no leading zeros, no trailing zeros
 * after the point ("21", "9.99", "0.5"). They travel as strings on the wire, are stored as
 * DECIMAL and leave the gateway as JSON numbers.
 */

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?$/;

interface ParsedDecimal {
  negative: boolean;
  integer: string;
  fraction: string;
}

function withoutTrailingZeros(digits: string): string {
  let end = digits.length;
  while (end > 0 && digits[end - 1] === '0') end -= 1;
  return digits.slice(0, end);
}

function parse(text: string): ParsedDecimal | undefined {
  const match = DECIMAL.exec(text.trim());
  if (!match) return undefined;
  const integer = (match[2] ?? '').replace(/^0+(?=\d)/, '');
  const fraction = withoutTrailingZeros(match[3] ?? '');
  if (integer === '' && (match[3] ?? '') === '') return undefined;
  return { negative: match[1] === '-', integer: integer === '' ? '0' : integer, fraction };
}

function format({ negative, integer, fraction }: ParsedDecimal): string {
  const isZero = /^0+$/.test(integer) && fraction === '';
  return `${negative && !isZero ? '-' : ''}${integer}${fraction ? `.${fraction}` : ''}`;
}

/** A decimal value in hundredths, exactly. */
function toCents(value: ParsedDecimal): bigint {
  const cents = BigInt(value.integer) * 100n + BigInt(value.fraction.padEnd(2, '0'));
  return value.negative ? -cents : cents;
}

export interface DecimalRange {
  /** Inclusive bounds, as decimal strings. */
  min: string;
  max: string;
}

/** Checks a client decimal: a number, at most 2 decimals, within the range. Returns the canonical form or the problem. */
export function checkDecimal(text: string, range: DecimalRange): { value: string } | { error: string } {
  const parsed = parse(text);
  if (!parsed) return { error: 'must be a number' };
  const rangeText = `must be between ${range.min} and ${range.max}`;
  if (parsed.fraction.length > 2) {
    return { error: 'must have at most 2 decimals' };
  }
  const cents = toCents(parsed);
  if (cents < toCents(parse(range.min)!) || cents > toCents(parse(range.max)!)) return { error: rangeText };
  return { value: format(parsed) };
}

/**
 * The canonical form of a stored DECIMAL(_, 2): MySQL returns strings ("21.00"), SQLite
 * returns numbers (21, 9.99).
 */
export function canonicalDecimal(stored: string | number): string {
  const text = typeof stored === 'number' ? stored.toFixed(2) : stored;
  const parsed = parse(text);
  if (!parsed) throw new Error(`not a stored decimal: ${String(stored)}`);
  return format(parsed);
}
