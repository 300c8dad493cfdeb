import fc from 'fast-check';

/**
 * fast-check arbitraries of the values a JSON Schema (OpenAPI 3.1) allows, for the subset the
 * document uses: type (or a list of types), enum, string length, pattern and format (uuid,
 * date-time, email, uri with a pattern), number and integer bounds, arrays with item schemas
 * and minItems, objects with required and optional properties ($ref resolved in `document`).
 * readOnly properties are never generated: a client does not send them.
 *
 * Two choices narrow what is generated, each where the document says more in words than its
 * schema can: a text is at most 40 characters unless its minimum asks for more (limits are
 * checked by their own tests), and a number has at most 2 decimals (the decimal fields say so
 * in their description; multipleOf 0.01 fails floating point validators).
 */
export type JsonSchema = Record<string, any>;

const TEXT_LENGTH = 40;

export function schemaArbitrary(document: JsonSchema, schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.$ref) return schemaArbitrary(document, resolve(document, schema.$ref as string));
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type ?? 'object'];
  return fc.oneof(...types.map((type) => typed(document, schema, type)));
}

function typed(document: JsonSchema, schema: JsonSchema, type: string): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -(2 ** 31), max: schema.maximum ?? 2 ** 31 - 1 });
    case 'number': {
      const cents = (bound: number | undefined, fallback: number) => Math.round((bound ?? fallback) * 100);
      return fc.integer({ min: cents(schema.minimum, -1e9), max: Math.min(cents(schema.maximum, 1e9), Number.MAX_SAFE_INTEGER) }).map((c) => c / 100);
    }
    case 'string':
      return text(schema);
    case 'array': {
      const items = schemaArbitrary(document, schema.items ?? {});
      return fc.array(items, { minLength: schema.minItems ?? 0, maxLength: Math.max(schema.minItems ?? 0, 4) });
    }
    case 'object':
      return object(document, schema);
    default:
      throw new Error(`no arbitrary for type ${type}`);
  }
}

function text(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength: number = schema.minLength ?? 0;
  const maxLength: number = schema.maxLength ?? Math.max(minLength, TEXT_LENGTH);
  const fits = (value: string) => [...value].length >= minLength && [...value].length <= maxLength;
  let values: fc.Arbitrary<string>;
  if (schema.format === 'uuid') values = fc.uuid();
  else if (schema.format === 'date-time') values = timestamp();
  else if (schema.format === 'email') values = fc.emailAddress();
  else if (schema.pattern) values = fc.stringMatching(new RegExp(schema.pattern as string));
  else values = fc.string({ unit: 'grapheme', minLength, maxLength: Math.min(maxLength, Math.max(minLength, TEXT_LENGTH)) });
  if (schema.pattern && schema.format) values = values.filter((value) => new RegExp(schema.pattern as string).test(value));
  return values.filter(fits);
}

/** RFC 3339 date-times with a Z or numeric offset, years 1000 to 9999. */
function timestamp(): fc.Arbitrary<string> {
  const instant = fc.date({ min: new Date('1000-01-02T00:00:00Z'), max: new Date('9999-12-30T00:00:00Z'), noInvalidDate: true });
  const offset = fc.integer({ min: -14 * 4, max: 14 * 4 }).map((quarters) => quarters * 15);
  return fc.tuple(instant, offset, fc.boolean()).map(([date, minutes, utc]) => {
    if (utc) return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const local = new Date(date.getTime() + minutes * 60_000).toISOString().slice(0, 19);
    const sign = minutes < 0 ? '-' : '+';
    const pad = (n: number) => String(Math.floor(Math.abs(n))).padStart(2, '0');
    return `${local}${sign}${pad(minutes / 60)}:${pad(Math.abs(minutes) % 60)}`;
  });
}

function object(document: JsonSchema, schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.entries<JsonSchema>(schema.properties ?? {}).filter(([, property]) => !resolveOnce(document, property).readOnly);
  const required = new Set<string>(schema.required ?? []);
  const model = Object.fromEntries(properties.map(([name, property]) => [name, schemaArbitrary(document, property)]));
  return fc.record(model, { requiredKeys: properties.map(([name]) => name).filter((name) => required.has(name)) }) as fc.Arbitrary<Record<string, unknown>>;
}

const resolveOnce = (document: JsonSchema, schema: JsonSchema): JsonSchema => (schema.$ref ? resolve(document, schema.$ref as string) : schema);

function resolve(document: JsonSchema, ref: string): JsonSchema {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<JsonSchema>((node, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
}
