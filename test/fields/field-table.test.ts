/**
 * The field tables (lib/fields) against the outside world: the proto messages (names,
 * types, presence, enum values, google.api.field_behavior) and the database columns of the
 * backend of this run (names and nullability). A field or column that one side has and the
 * other lacks fails here.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { EVENT } from '../../lib/fields/event.js';
import { columnOf, storedFields, type FieldDef, type Resource } from '../../lib/fields/kinds.js';
import { ORDER, ORDER_BARCODE_FIELDS, ORDER_LINE_FIELDS, CANCELLATION_FIELDS, LINE_PRICE_FIELDS, TOTALS_FIELDS, VAT_SHARE_FIELDS } from '../../lib/fields/order.js';
import { LINE_PRICE_COLUMNS } from '../../services/ticket/store/migrations/money-migration.js';
import { RESERVATION, SCAN } from '../../lib/fields/reservation.js';
import { TICKET } from '../../lib/fields/ticket.js';
import { USER } from '../../lib/fields/user.js';
import { DELIVERY, WEBHOOK } from '../../lib/webhooks/fields.js';
import { COUPON, COUPON_CODE } from '../../lib/fields/coupon.js';
import { protoRoot } from '../../lib/grpc/reflection.js';
import { withMigratedDatabase } from './database.js';

/** `table` is absent for a message that is a view of rows, not a table of its own (the scan answer). */
const resources: Array<{ resource: Resource; message: string; file: string; table?: string; database: 'auth' | 'ticket'; storeOnly: string[]; primaryKey?: string }> = [
  { resource: TICKET, message: 'ticketing.v1.Ticket', file: 'ticketing/v1/ticket.proto', table: 'tickets', database: 'ticket', storeOnly: ['id', 'version'] },
  { resource: EVENT, message: 'ticketing.v1.Event', file: 'ticketing/v1/event.proto', table: 'events', database: 'ticket', storeOnly: ['id', 'version'] },
  { resource: RESERVATION, message: 'ticketing.v1.Reservation', file: 'ticketing/v1/reservation.proto', table: 'reservations', database: 'ticket', storeOnly: ['id', 'order_id', ...LINE_PRICE_COLUMNS, 'price_vat_percentage', 'cancelled_amount'] },
  { resource: SCAN, message: 'ticketing.v1.Scan', file: 'ticketing/v1/reservation.proto', database: 'ticket', storeOnly: [] },
  // The order's own row holds only some of its fields (its state and expiry are its lines'): the message only.
  { resource: ORDER, message: 'ticketing.v1.Order', file: 'ticketing/v1/order.proto', database: 'ticket', storeOnly: [] },
  { resource: { noun: 'order line', fields: ORDER_LINE_FIELDS, orderRules: [] }, message: 'ticketing.v1.OrderLine', file: 'ticketing/v1/order.proto', database: 'ticket', storeOnly: [] },
  { resource: { noun: 'barcode', fields: ORDER_BARCODE_FIELDS, orderRules: [] }, message: 'ticketing.v1.OrderBarcode', file: 'ticketing/v1/order.proto', database: 'ticket', storeOnly: [] },
  { resource: { noun: 'line price', fields: LINE_PRICE_FIELDS, orderRules: [] }, message: 'ticketing.v1.LinePrice', file: 'ticketing/v1/order.proto', database: 'ticket', storeOnly: [] },
  { resource: { noun: 'totals', fields: TOTALS_FIELDS, orderRules: [] }, message: 'ticketing.v1.OrderTotals', file: 'ticketing/v1/order.proto', database: 'ticket', storeOnly: [] },
  { resource: { noun: 'cancellation', fields: CANCELLATION_FIELDS, orderRules: [] }, message: 'ticketing.v1.Cancellation', file: 'ticketing/v1/order.proto', database: 'ticket', storeOnly: [] },
  { resource: { noun: 'VAT share', fields: VAT_SHARE_FIELDS, orderRules: [] }, message: 'ticketing.v1.VatShare', file: 'ticketing/v1/order.proto', database: 'ticket', storeOnly: [] },
  { resource: WEBHOOK, message: 'ticketing.v1.Webhook', file: 'ticketing/v1/webhook.proto', table: 'webhook_endpoints', database: 'ticket', storeOnly: ['id', 'version', 'deleted_at'] },
  { resource: DELIVERY, message: 'ticketing.v1.Delivery', file: 'ticketing/v1/webhook.proto', database: 'ticket', storeOnly: [] },
  { resource: COUPON, message: 'ticketing.v1.Coupon', file: 'ticketing/v1/coupon.proto', table: 'coupons', database: 'ticket', storeOnly: ['id', 'version'] },
  { resource: COUPON_CODE, message: 'ticketing.v1.CouponCode', file: 'ticketing/v1/coupon.proto', table: 'coupon_codes', database: 'ticket', storeOnly: ['id', 'coupon_id', 'event_id', 'code_key'] },
  { resource: USER, message: 'auth.v1.User', file: 'auth/v1/auth.proto', table: 'users', database: 'auth', storeOnly: ['password_hash'], primaryKey: 'guid' },
];

function loadProtos(): protobuf.Root {
  const root = new protobuf.Root();
  const protoDir = protoRoot();
  // The well-known types come with protobufjs; everything else is ours (google/api and google/rpc vendored).
  const wellKnown = path.dirname(createRequire(import.meta.url).resolve('protobufjs/package.json'));
  root.resolvePath = (_origin, target) => path.join(target.startsWith('google/protobuf/') ? wellKnown : protoDir, target);
  root.loadSync(resources.map((r) => r.file), { keepCase: true });
  root.resolveAll();
  return root;
}

const PROTO_TYPE: Record<FieldDef['kind']['type'], string> = {
  guid: 'string',
  text: 'string',
  decimal: 'string',
  integer: 'int32',
  boolean: 'bool',
  timestamp: 'google.protobuf.Timestamp',
  enum: 'enum',
  'text-list': 'string',
  // A nested message of our own (its fields are a table of their own).
  object: 'message',
  'object-list': 'message',
};

function protoType(field: protobuf.Field): string {
  if (field.resolvedType instanceof protobuf.Enum) return 'enum';
  if (field.resolvedType instanceof protobuf.Type) {
    const name = field.resolvedType.fullName.replace(/^\./, '');
    return name.startsWith('google.protobuf.') ? name : 'message';
  }
  return field.type;
}

/** Presence: an unset field reads as null, so every nullable or client-settable field needs it (an enum's null is UNSPECIFIED). */
const hasPresence = (field: protobuf.Field) => field.resolvedType instanceof protobuf.Type || field.options?.proto3_optional === true;

function behaviors(field: protobuf.Field): string[] {
  const options = (field.parsedOptions ?? []) as Array<Record<string, unknown>>;
  return options.flatMap((option) => {
    const value = option['(google.api.field_behavior)'];
    return value === undefined ? [] : [value as string];
  });
}

/** AIP-203 from the table's roles: what the service manages or computes is OUTPUT_ONLY; creation needs REQUIRED ones. */
function expectedBehaviors(def: FieldDef): string[] {
  if (def.role !== 'writable') return ['OUTPUT_ONLY'];
  return [def.required ? 'REQUIRED' : 'OPTIONAL'];
}

const upperSnake = (value: string) => value.toUpperCase();

describe.each(resources)('$message', ({ resource, message, table, database, storeOnly, primaryKey }) => {
  const root = loadProtos();
  const type = root.lookupType(message);

  it('has exactly the fields of the table', () => {
    expect(type.fieldsArray.map((f) => f.name).sort()).toEqual(Object.keys(resource.fields).sort());
  });

  it.each(Object.entries(resource.fields))('%s: proto type and presence match the table', (name, def) => {
    const field = type.fields[name]!;
    expect(field, name).toBeDefined();
    expect(protoType(field), name).toBe(PROTO_TYPE[def.kind.type]);
    expect(field.repeated, `${name} repeated`).toBe(def.kind.type === 'text-list' || def.kind.type === 'object-list');
    // A repeated field has no presence in proto3: an empty list is "not sent" (the webhook's events).
    // A nullable list's null is the empty list, so an empty one must be refused (minItems): never a value of its own.
    if (def.kind.type === 'text-list' && def.nullable) expect(def.kind.minItems ?? 0, `${name}: a nullable list needs minItems`).toBeGreaterThanOrEqual(1);
    if ((def.nullable && def.kind.type !== 'enum' && def.kind.type !== 'text-list') || (def.role === 'writable' && def.kind.type !== 'text-list')) expect(hasPresence(field), `${name} needs presence`).toBe(true);
    if (def.kind.type === 'enum') {
      const values = (field.resolvedType as protobuf.Enum).values;
      const prefix = Object.keys(values).find((key) => values[key] === 0)!.replace(/UNSPECIFIED$/, '');
      const expected = Object.fromEntries([[`${prefix}UNSPECIFIED`, 0], ...def.kind.values.map((v, i) => [`${prefix}${upperSnake(v)}`, i + 1])]);
      expect(values, name).toEqual(expected);
    }
  });

  it.each(Object.entries(resource.fields))('%s: google.api.field_behavior matches the role', (name, def) => {
    expect(behaviors(type.fields[name]!)).toEqual(expectedBehaviors(def));
  });

  it.skipIf(!table)(`the ${table} table has a column for every stored field and no column without one, nullable alike`, async () => {
    await withMigratedDatabase(database, async (db) => {
      const columns = await db(table!).columnInfo();
      const expected = [...storedFields(resource.fields).map((field) => columnOf(resource.fields, field)), ...storeOnly].sort();
      expect(Object.keys(columns).sort()).toEqual(expected);
      // SQLite lets a text primary key hold NULL unless it is declared NOT NULL; the key is never null anyway.
      for (const field of storedFields(resource.fields).filter((f) => f !== primaryKey)) {
        expect(columns[columnOf(resource.fields, field)]!.nullable, `${table}.${field} nullable`).toBe(resource.fields[field]!.nullable);
      }
    });
  });
});
