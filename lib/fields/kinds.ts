/**
 * The shape of a field table: one row per field of a resource (ticket, event, user, ...).
 * Everything else about a field (record types, value rules, input coercion, update mask,
 * JSON output, row and message mapping, OpenAPI schemas) is derived from its row; see
 * docs/architecture.md.
 */

export const INT32_MAX = 2_147_483_647;

/** What a value is. Text-like kinds travel as strings; decimals as exact strings. */
export type FieldKind =
  | { type: 'guid' }
  /** `min` (a shortest length) is read by the sign-up rules only (services/auth/domain/sign-up-rules.ts). */
  /** `format` url: an absolute http or https URL without user name or password (lib/webhooks/targets.ts checks it); currency: a code of lib/money.ts CURRENCY_DIGITS. */
  | { type: 'text'; max: number; min?: number; notBlank?: boolean; format?: 'email' | 'url' | 'currency' }
  | { type: 'decimal'; min: string; max: string }
  | { type: 'integer'; min: number; max?: number }
  | { type: 'boolean' }
  | { type: 'timestamp' }
  /** A list of strings (a repeated proto field, a JSON array); `values`: the strings it may hold, `minItems`/`maxItems`: its shortest and longest length. */
  | { type: 'text-list'; values?: readonly string[]; minItems?: number; maxItems?: number }
  /** A proto enum: value i of `values` is enum number i + 1 (0 is UNSPECIFIED, read as null). */
  | { type: 'enum'; values: readonly string[] }
  /** A nested message (a JSON object), each of its fields by its own table. */
  | { type: 'object'; fields: FieldTable }
  /** A repeated nested message (a JSON array of objects), each by `fields`; `maxItems`: its longest length. */
  | { type: 'object-list'; fields: FieldTable; maxItems?: number };

/**
 * - writable: a client sets it at creation and with an update;
 * - server-managed: the service sets it; a client may send it back unchanged, a different value is refused;
 * - ignored: the service sets it; accepted and ignored when sent;
 * - computed: not stored, derived on every read; accepted and ignored when sent.
 */
export type FieldRole = 'writable' | 'server-managed' | 'ignored' | 'computed';

export interface FieldDef {
  kind: FieldKind;
  nullable: boolean;
  role: FieldRole;
  /** One line, for the OpenAPI schema and the reader. */
  description: string;
  /** Writable fields: creation fails without it. */
  required?: boolean;
  /** The value at creation (writable fields: when not sent; decimals as strings). */
  default?: string | number | boolean | null;
  /** The field's position in the creation response, when it is one of its fields (tickets: spec 2.1 rule 1). */
  inCreationResponse?: number;
  /** The database column, when it is not the field's name. */
  column?: string;
  /** Not part of the JSON object (the etag travels as the ETag header). */
  notInJson?: boolean;
  /** A secret a client sends and nothing returns (the sign-up password): taken verbatim, never trimmed. */
  writeOnly?: boolean;
  /**
   * A valid value for the documentation, when the kind's own example (gateway/openapi/examples.ts)
   * says too little. A writable field's example that is not nullable also goes into the example
   * request body (the one the docs page pre-fills), with the required fields; a nullable one
   * stays out of it, so a pre-filled body leaves such a field open (a sale window, for one).
   */
  example?: string | number | boolean | readonly string[];
}

/** A resource's table: field name -> row, in the order of its JSON object. */
export type FieldTable = Readonly<Record<string, FieldDef>>;

/**
 * Two writable fields whose values must keep an order when both are set (min <= max, a
 * window's start before its end). The messages name the field in the wrong: `{lower}`,
 * `{upper}` and their values `{lowerValue}`, `{upperValue}` are filled in.
 */
export interface OrderRule {
  lower: string;
  upper: string;
  /** Equal values keep the order. */
  allowEqual: boolean;
  /** For the lower field when it is above the upper one. */
  lowerMessage: string;
  /** For the upper field when it is below the lower one. */
  upperMessage: string;
}

export interface Resource<T extends FieldTable = FieldTable> {
  /** The resource's JSON name, for paths and messages ("is not a field of the ticket"). */
  noun: string;
  fields: T;
  orderRules: readonly OrderRule[];
}

type KindValue<K extends FieldKind> = K extends { type: 'integer' }
  ? number
  : K extends { type: 'boolean' }
    ? boolean
    : K extends { type: 'timestamp' }
      ? Date
      : K extends { type: 'enum'; values: readonly (infer V)[] }
        ? V
        : K extends { type: 'text-list' }
          ? string[]
          : K extends { type: 'object' }
            ? NestedValue
            : K extends { type: 'object-list' }
              ? NestedValue[]
              : string;

/** A nested object's values, by its own table. */
export type NestedValue = Record<string, unknown>;

export type FieldValue<F extends FieldDef> = F['nullable'] extends true ? KindValue<F['kind']> | null : KindValue<F['kind']>;

export type FieldsWithRole<T extends FieldTable, R extends FieldRole> = { [K in keyof T]: T[K]['role'] extends R ? K : never }[keyof T] & string;

/** The values of the fields with one of the given roles, as the service holds them (null for none). */
export type ValuesOf<T extends FieldTable, R extends FieldRole> = { -readonly [K in FieldsWithRole<T, R>]: FieldValue<T[K]> };

export type ValueOfAny = string | number | boolean | Date | string[] | NestedValue | NestedValue[] | null;

/** The row of a field, or undefined when the table has no such field (never an Object.prototype member). */
export function fieldDef(table: FieldTable, name: string): FieldDef | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

/** The tables are constants: their entries are listed once, not for every row or message (a whole-list stream converts one per ticket). */
const entriesOfTable = new WeakMap<FieldTable, ReadonlyArray<readonly [string, FieldDef]>>();
export function tableEntries(table: FieldTable): ReadonlyArray<readonly [string, FieldDef]> {
  let entries = entriesOfTable.get(table);
  if (!entries) entriesOfTable.set(table, (entries = Object.entries(table)));
  return entries;
}

export function fieldNames<T extends FieldTable>(table: T): Array<keyof T & string> {
  return Object.keys(table);
}

export function fieldsWithRole<T extends FieldTable, R extends FieldRole>(table: T, ...roles: R[]): Array<FieldsWithRole<T, R>> {
  return fieldNames(table).filter((name) => (roles as FieldRole[]).includes(table[name]!.role)) as Array<FieldsWithRole<T, R>>;
}

/** The fields of the creation response, in its order (empty: the creation response is the full object). */
export function creationFields(table: FieldTable): string[] {
  return fieldNames(table)
    .filter((name) => table[name]!.inCreationResponse !== undefined)
    .sort((a, b) => table[a]!.inCreationResponse! - table[b]!.inCreationResponse!);
}

/** Stored fields: every field but the computed ones. */
export function storedFields<T extends FieldTable>(table: T): Array<keyof T & string> {
  return fieldNames(table).filter((name) => table[name]!.role !== 'computed');
}

export const columnOf = (table: FieldTable, field: string): string => fieldDef(table, field)?.column ?? field;

export function requiredFields<T extends FieldTable>(table: T): Array<FieldsWithRole<T, 'writable'>> {
  return fieldsWithRole(table, 'writable').filter((name) => table[name]!.required);
}

/**
 * The values a creation starts from, for the fields of one role: the default, or null for
 * a nullable field without one. Required fields and those the service sets itself (guid,
 * created_at, ...) have none.
 */
export function defaultsOf<T extends FieldTable, R extends FieldRole = 'writable'>(table: T, role: R = 'writable' as R): Partial<ValuesOf<T, R>> {
  const defaults: Record<string, unknown> = {};
  for (const name of fieldsWithRole(table, role)) {
    const def = table[name]!;
    if (def.default !== undefined) defaults[name] = def.default;
    else if (!def.required && def.nullable) defaults[name] = null;
  }
  return defaults as Partial<ValuesOf<T, R>>;
}
