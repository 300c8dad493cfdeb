import { requiredFields, type FieldDef, type FieldKind, type FieldTable, type Resource } from '../../lib/fields/kinds.js';

/**
 * Examples of the OpenAPI document, from the field tables: a field's own `example`, else its
 * default, else one of its kind. Each is valid by the field's rule, so a body made of them is
 * one the server takes.
 */
const KIND_EXAMPLES: { [T in FieldKind['type']]: (kind: Extract<FieldKind, { type: T }>) => unknown } = {
  guid: () => '5f0c2a8e-1d4b-4c8e-9a3f-2b7d6e1f0a94',
  text: (kind) => (kind.format === 'email' ? 'ada@example.com' : kind.format === 'url' ? 'https://shop.example.com/webhooks' : 'Example'),
  decimal: (kind) => Number(kind.min),
  integer: (kind) => kind.min,
  boolean: () => false,
  timestamp: () => '2027-07-01T18:00:00+00:00',
  enum: (kind) => kind.values[0],
  'text-list': (kind) => (kind.values ? kind.values.slice(0, Math.max(1, kind.minItems ?? 1)) : ['ABC-1234']),
  object: (kind) => nestedExample(kind.fields),
  'object-list': (kind) => [nestedExample(kind.fields)],
};

const nestedExample = (fields: FieldTable) => Object.fromEntries(Object.entries(fields).filter(([, def]) => !def.notInJson).map(([field, def]) => [field, exampleOf(def)]));

export function exampleOf(def: FieldDef): unknown {
  if (def.example !== undefined) return def.example;
  if (def.default !== undefined && def.default !== null) return def.kind.type === 'decimal' ? Number(def.default) : def.default;
  return (KIND_EXAMPLES[def.kind.type] as (kind: FieldKind) => unknown)(def.kind);
}

/**
 * The example request body of a resource (what the docs page pre-fills): its required fields
 * and the writable fields whose rows give an example and are not nullable (lib/fields/kinds.ts,
 * `example`). Fields left out take their defaults.
 */
export function exampleBody(resource: Resource): Record<string, unknown> {
  const required = new Set<string>(requiredFields(resource.fields));
  const chosen = Object.entries(resource.fields).filter(
    ([field, def]) => def.role === 'writable' && (required.has(field) || (def.example !== undefined && !def.nullable)),
  );
  return Object.fromEntries(chosen.map(([field, def]) => [field, exampleOf(def)]));
}
