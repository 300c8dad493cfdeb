import type { FieldViolation } from '../../../lib/grpc/errors.js';
import type { Ticket } from '../../../lib/gen/ticketing/v1/ticket.js';
import type { DecimalRange } from './decimal.js';
import { sameGuid, sameSecond } from './field-checks.js';
import { checkValue, type FieldRule } from './field-rules.js';
import {
  BARCODE_TYPES,
  IGNORED_TICKET_FIELDS,
  REQUIRED_TICKET_FIELDS,
  SERVER_MANAGED_TICKET_FIELDS,
  STATUS_OVERRULES,
  TICKET_DEFAULTS,
  WRITABLE_TICKET_FIELDS,
  type ServerManagedTicketField,
  type TicketRecord,
  type TicketValues,
  type WritableTicketField,
} from './ticket-fields.js';
import { classifyMask } from './update-mask.js';

const PERCENTAGE: DecimalRange = { min: '0', max: '100' };
const AMOUNT: DecimalRange = { min: '0', max: '9999999999.99' };
const BOOLEAN: FieldRule = { kind: 'boolean' };
const COUNT: FieldRule = { kind: 'integer', min: 0 };

/** The value rules of docs/ticket-api.md, one per writable field. */
export const TICKET_RULES: Record<WritableTicketField, FieldRule> = {
  name: { kind: 'text', nullable: false, max: 255, notBlank: true },
  description: { kind: 'text', nullable: true, max: 10_000 },
  min_price: { kind: 'decimal', nullable: true, range: AMOUNT },
  vat_percentage: { kind: 'decimal', nullable: false, range: PERCENTAGE },
  late_personalization: BOOLEAN,
  status_overrule: { kind: 'enum', values: STATUS_OVERRULES },
  barcode_type: { kind: 'enum', values: BARCODE_TYPES },
  class: { kind: 'text', nullable: true, max: 255 },
  available_stock: COUNT,
  increment: { kind: 'integer', min: 1 },
  available_from: { kind: 'timestamp', nullable: true },
  available_until: { kind: 'timestamp', nullable: true },
  availability_margin: COUNT,
  min_orderable_amount_per_order: COUNT,
  max_orderable_amount_per_order: COUNT,
  percentage_service_costs_in_ticket: { kind: 'decimal', nullable: false, range: PERCENTAGE },
  seats_category_key: { kind: 'text', nullable: true, max: 255 },
  available_in_cashr: BOOLEAN,
  hide_without_coupon: BOOLEAN,
  combines_products: BOOLEAN,
  swappable: BOOLEAN,
  seated: BOOLEAN,
  include_service_cost_in_price: BOOLEAN,
};

/** The message's value of a field (proto field names are the ticket's field names). */
function sent(ticket: Ticket, field: WritableTicketField | ServerManagedTicketField): unknown {
  return (ticket as unknown as Record<string, unknown>)[field];
}

type ServerManagedValues = Pick<TicketRecord, ServerManagedTicketField>;

/** True when a server-managed field of the message carries the value the service holds (timestamps as instants, at second precision). */
function sameAsServer(field: ServerManagedTicketField, ticket: Ticket, record: ServerManagedValues): boolean {
  switch (field) {
    case 'guid':
    case 'company_id':
    case 'event_id':
      return sameGuid(ticket[field], record[field]);
    case 'created_at':
      return ticket.created_at !== undefined && sameSecond(ticket.created_at, record.created_at);
    case 'deleted_at':
      return ticket.deleted_at === undefined ? record.deleted_at === null : record.deleted_at !== null && sameSecond(ticket.deleted_at, record.deleted_at);
    default:
      return ticket[field] === record[field];
  }
}

/** Whether the message carries a server-managed field at all (creation has no mask). */
function carries(field: ServerManagedTicketField, ticket: Ticket): boolean {
  const value = sent(ticket, field);
  return value !== undefined && value !== '';
}

const SERVER_MANAGED_MESSAGE = 'is managed by the service and cannot be changed';

/** A condition the UPDATE re-checks against the row it changes, so a cross-field rule holds under concurrent updates. */
export interface ColumnGuard {
  column: WritableTicketField;
  op: '<' | '<=' | '>' | '>=';
  value: number | Date;
  /** The condition also holds when the column is null. */
  orNull?: boolean;
}

/** The rules that join two fields; `changed` are the fields this request sets (validly). */
function crossFieldViolations(values: TicketValues, changed: ReadonlySet<WritableTicketField>): FieldViolation[] {
  const violations: FieldViolation[] = [];
  const min = values.min_orderable_amount_per_order;
  const max = values.max_orderable_amount_per_order;
  if (min > max) {
    if (changed.has('min_orderable_amount_per_order')) {
      violations.push({ field: 'min_orderable_amount_per_order', description: `must not be greater than max_orderable_amount_per_order (${max})` });
    }
    if (changed.has('max_orderable_amount_per_order')) {
      violations.push({ field: 'max_orderable_amount_per_order', description: `must not be less than min_orderable_amount_per_order (${min})` });
    }
  }
  const from = values.available_from;
  const until = values.available_until;
  if (from && until && from.getTime() >= until.getTime()) {
    if (changed.has('available_from')) violations.push({ field: 'available_from', description: 'must be before available_until' });
    if (changed.has('available_until')) violations.push({ field: 'available_until', description: 'must be after available_from' });
  }
  return violations;
}

function guardsFor(changes: Partial<TicketValues>): ColumnGuard[] {
  const guards: ColumnGuard[] = [];
  const has = (field: WritableTicketField) => Object.hasOwn(changes, field);
  if (has('min_orderable_amount_per_order') && !has('max_orderable_amount_per_order')) {
    guards.push({ column: 'max_orderable_amount_per_order', op: '>=', value: changes.min_orderable_amount_per_order! });
  }
  if (has('max_orderable_amount_per_order') && !has('min_orderable_amount_per_order')) {
    guards.push({ column: 'min_orderable_amount_per_order', op: '<=', value: changes.max_orderable_amount_per_order! });
  }
  if (changes.available_from && !has('available_until')) {
    guards.push({ column: 'available_until', op: '>', value: changes.available_from, orNull: true });
  }
  if (changes.available_until && !has('available_from')) {
    guards.push({ column: 'available_from', op: '<', value: changes.available_until, orNull: true });
  }
  return guards;
}

export interface NewTicketCheck {
  values: TicketValues;
  violations: FieldViolation[];
}

/**
 * CreateTicket: name and vat_percentage are required, every other writable field that is
 * set is checked and overrides its default. Server-managed fields may only carry the value
 * the service is about to give them (`prospective`).
 */
export function checkNewTicket(ticket: Ticket, prospective: ServerManagedValues): NewTicketCheck {
  const violations: FieldViolation[] = [];
  const values: Record<string, unknown> = { ...TICKET_DEFAULTS };
  const changed = new Set<WritableTicketField>();
  for (const field of WRITABLE_TICKET_FIELDS) {
    const raw = sent(ticket, field);
    if (raw === undefined) {
      if (REQUIRED_TICKET_FIELDS.includes(field)) violations.push({ field, description: 'is required' });
      continue;
    }
    const checked = checkValue(TICKET_RULES[field], raw);
    if ('error' in checked) {
      violations.push({ field, description: checked.error });
    } else {
      values[field] = checked.value;
      changed.add(field);
    }
  }
  for (const field of SERVER_MANAGED_TICKET_FIELDS) {
    if (carries(field, ticket) && !sameAsServer(field, ticket, prospective)) violations.push({ field, description: SERVER_MANAGED_MESSAGE });
  }
  violations.push(...crossFieldViolations(values as unknown as TicketValues, changed));
  return { values: values as unknown as TicketValues, violations };
}

export interface TicketChangesCheck {
  /** Only the writable fields named by the mask. */
  changes: Partial<TicketValues>;
  guards: ColumnGuard[];
  violations: FieldViolation[];
}

/**
 * UpdateTicket: the mask names the fields to change (empty mask: the writable fields that
 * are set). A masked field that is unset in the message becomes null. Server-managed fields
 * must match the stored ticket; status and updated_at are ignored; anything else is unknown.
 */
export function checkTicketChanges(ticket: Ticket, mask: readonly string[] | undefined, current: TicketRecord): TicketChangesCheck {
  const roles = { writable: WRITABLE_TICKET_FIELDS, serverManaged: SERVER_MANAGED_TICKET_FIELDS, ignored: IGNORED_TICKET_FIELDS, noun: 'ticket' };
  const paths = classifyMask(mask, roles, (field) => sent(ticket, field) !== undefined);
  const violations: FieldViolation[] = [...paths.unknown];
  const changes: Record<string, unknown> = {};
  for (const field of paths.writable) {
    const checked = checkValue(TICKET_RULES[field], sent(ticket, field));
    if ('error' in checked) violations.push({ field, description: checked.error });
    else changes[field] = checked.value;
  }
  for (const field of paths.serverManaged) {
    if (!sameAsServer(field, ticket, current)) violations.push({ field, description: SERVER_MANAGED_MESSAGE });
  }
  const typed = changes as Partial<TicketValues>;
  violations.push(...crossFieldViolations({ ...current, ...typed }, new Set(Object.keys(typed) as WritableTicketField[])));
  return { changes: typed, guards: guardsFor(typed), violations };
}
