import type { FieldViolation } from '../lib/grpc/errors.js';
import type { BodyKind } from './body.js';
import type { FieldDef } from '../lib/fields/kinds.js';
import { coerce } from './field-input.js';

const TEXT: FieldDef = { kind: { type: 'text', max: Number.MAX_SAFE_INTEGER }, nullable: false, role: 'writable', description: '' };
const INTEGER: FieldDef = { kind: { type: 'integer', min: 0 }, nullable: false, role: 'writable', description: '' };

/** Bodies of the stock moves: only the named fields, each of its type; the service checks the values. */

export interface MoveInput {
  amount?: number;
  ttl_seconds?: number;
  barcodes: string[];
  barcode?: string;
  violations: FieldViolation[];
}

type MoveField = 'amount' | 'ttl_seconds' | 'barcodes' | 'barcode';

export function moveInput(body: Record<string, unknown>, kind: BodyKind, allowed: readonly MoveField[], required: readonly MoveField[] = []): MoveInput {
  const input: MoveInput = { barcodes: [], violations: [] };
  for (const [key, raw] of Object.entries(body)) {
    if (!(allowed as readonly string[]).includes(key)) {
      input.violations.push({ field: key, description: 'is not a field of this request' });
      continue;
    }
    if (key === 'barcodes') {
      const list = Array.isArray(raw) ? raw : kind === 'form' && typeof raw === 'string' ? [raw] : undefined;
      if (list && list.every((code) => typeof code === 'string')) input.barcodes = list as string[];
      else input.violations.push({ field: key, description: 'must be an array of strings' });
      continue;
    }
    const coerced = coerce(key === 'barcode' ? TEXT : INTEGER, raw, kind);
    if ('error' in coerced) input.violations.push({ field: key, description: coerced.error });
    else if (key === 'barcode') input.barcode = coerced.value as string;
    else input[key as 'amount' | 'ttl_seconds'] = coerced.value as number;
  }
  for (const field of required) {
    if (!(field in body)) input.violations.push({ field, description: 'is required' });
  }
  return input;
}
