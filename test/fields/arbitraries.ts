import fc from 'fast-check';
import { INT32_MAX, storedFields, type FieldDef, type FieldTable } from '../../lib/fields/kinds.js';

/** Varied values of the field tables, derived from their kinds (property tests of the converters). */

/** Texts that JSON must escape, and other unicode, besides plain ones. */
const text = (max: number) =>
  fc.oneof(fc.string({ maxLength: Math.min(max, 40) }), fc.string({ unit: 'binary', maxLength: Math.min(max, 20) }), fc.constantFrom('"quoted"', 'back\\slash', 'line\nbreak', '\u0000\u001f', '</script>', 'é ✓ 😀'));

const cents = (min: string, max: string) => fc.bigInt({ min: BigInt(Math.round(Number(min) * 100)), max: BigInt(Math.round(Number(max) * 100)) });

/** A canonical decimal string (as a message or record holds it). */
function decimal(min: string, max: string): fc.Arbitrary<string> {
  return cents(min, max).map((c) => {
    const negative = c < 0n;
    const abs = negative ? -c : c;
    const fraction = (abs % 100n).toString().padStart(2, '0').replace(/0+$/, '');
    return `${negative ? '-' : ''}${abs / 100n}${fraction ? `.${fraction}` : ''}`;
  });
}

/** Whole seconds between 1971 and 2099: every backend stores them exactly. */
const storableDate = fc.integer({ min: 31_536_000, max: 4_102_444_799 }).map((seconds) => new Date(seconds * 1000));

/** A nested object: a value for each of its members. */
const nestedArbitrary = (fields: FieldTable) => fc.record(Object.fromEntries(Object.entries(fields).map(([field, def]) => [field, valueArbitrary(def)])));

/** A value of the field as the service holds it (a record's value); `null` for a nullable field sometimes. */
export function valueArbitrary(def: FieldDef): fc.Arbitrary<unknown> {
  const kind = def.kind;
  const value: fc.Arbitrary<unknown> = (() => {
    switch (kind.type) {
      case 'guid':
        return fc.uuid();
      case 'text':
        return text(kind.max);
      case 'decimal':
        return decimal(kind.min, kind.max);
      case 'integer':
        return fc.integer({ min: kind.min, max: kind.max ?? INT32_MAX });
      case 'boolean':
        return fc.boolean();
      case 'timestamp':
        return storableDate;
      case 'text-list':
        return fc.array(text(40), { maxLength: 4 });
      case 'enum':
        return fc.constantFrom(...kind.values);
      case 'object':
        return nestedArbitrary(kind.fields);
      case 'object-list':
        return fc.array(nestedArbitrary(kind.fields), { maxLength: 3 });
    }
  })();
  return def.nullable ? fc.option(value, { nil: null }) : value;
}

/** The values of every stored field of a table. */
export function storedValuesArbitrary(table: FieldTable): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(Object.fromEntries(storedFields(table).map((field) => [field, valueArbitrary(table[field]!)])));
}

/**
 * A message of the table as a client or service may hold it: fields unset, enum numbers
 * in and out of range, and any Date (also beyond year 9999), besides the values above.
 */
export function messageArbitrary(table: FieldTable): fc.Arbitrary<Record<string, unknown>> {
  const field = (def: FieldDef): fc.Arbitrary<unknown> => {
    const kind = def.kind;
    if (kind.type === 'enum') return fc.option(fc.integer({ min: -1, max: kind.values.length + 1 }), { nil: undefined });
    if (kind.type === 'timestamp') return fc.option(fc.date({ noInvalidDate: true }), { nil: undefined });
    const value = valueArbitrary({ ...def, nullable: false });
    if (kind.type === 'text') return fc.option(fc.oneof(value, text(10_000)), { nil: undefined });
    // Not what the service sends, but what a decimal string could be: non-canonical, out of a double's range, not a number.
    if (kind.type === 'decimal') return fc.option(fc.oneof(value, fc.constantFrom('007.50', '-0', '1e400', 'abc', '')), { nil: undefined });
    return fc.option(value, { nil: undefined });
  };
  return fc.record(Object.fromEntries(Object.entries(table).map(([name, def]) => [name, field(def)])));
}
