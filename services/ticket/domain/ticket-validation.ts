import type { FieldViolation } from '../../../lib/grpc/errors.js';
import { TICKET } from '../../../lib/fields/ticket.js';
import { checkChanges, checkNew, type ServerManagedValues } from './resource-checks.js';
import type { TicketRecord, TicketValues, WritableTicketField } from './ticket-fields.js';

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

/** CreateTicket: see checkNew; `prospective` are the server-managed values the service is about to give. */
export function checkNewTicket(ticket: object, prospective: ServerManagedValues<typeof TICKET.fields>) {
  return checkNew(TICKET, ticket, prospective, crossFieldViolations);
}

export interface TicketChangesCheck {
  /** Only the writable fields named by the mask. */
  changes: Partial<TicketValues>;
  guards: ColumnGuard[];
  violations: FieldViolation[];
}

/** UpdateTicket: see checkChanges; status and updated_at are ignored. */
export function checkTicketChanges(ticket: object, mask: readonly string[] | undefined, current: TicketRecord): TicketChangesCheck {
  const { changes, violations } = checkChanges(TICKET, ticket, mask, current, crossFieldViolations);
  return { changes, guards: guardsFor(changes), violations };
}
