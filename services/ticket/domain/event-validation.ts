import type { FieldViolation } from '../../../lib/grpc/errors.js';
import type { Event } from '../../../lib/gen/ticketing/v1/event.js';
import { sameGuid, sameSecond } from './field-checks.js';
import { checkValue, type FieldRule } from './field-rules.js';
import {
  IGNORED_EVENT_FIELDS,
  SERVER_MANAGED_EVENT_FIELDS,
  WRITABLE_EVENT_FIELDS,
  type EventRecord,
  type EventValues,
  type ServerManagedEventField,
  type WritableEventField,
} from './event-fields.js';
import { classifyMask } from './update-mask.js';

/** The value rules of docs/ticket-api.md (event fields), one per writable field. */
export const EVENT_RULES: Record<WritableEventField, FieldRule> = {
  name: { kind: 'text', nullable: false, max: 255, notBlank: true },
  description: { kind: 'text', nullable: true, max: 10_000 },
  start: { kind: 'timestamp', nullable: true },
  end: { kind: 'timestamp', nullable: true },
};

function sent(event: Event, field: WritableEventField): unknown {
  return event[field];
}

type ServerManagedValues = Pick<EventRecord, ServerManagedEventField>;

function sameAsServer(field: ServerManagedEventField, event: Event, record: ServerManagedValues): boolean {
  switch (field) {
    case 'guid':
    case 'company_id':
      return sameGuid(event[field], record[field]);
    case 'created_at':
      return event.created_at !== undefined && sameSecond(event.created_at, record.created_at);
    case 'deleted_at':
      return event.deleted_at === undefined ? record.deleted_at === null : record.deleted_at !== null && sameSecond(event.deleted_at, record.deleted_at);
  }
}

function carries(field: ServerManagedEventField, event: Event): boolean {
  const value = event[field];
  return value !== undefined && value !== '';
}

const SERVER_MANAGED_MESSAGE = 'is managed by the service and cannot be changed';

function windowViolations(values: EventValues, changed: ReadonlySet<WritableEventField>): FieldViolation[] {
  if (!values.start || !values.end || values.end.getTime() >= values.start.getTime()) return [];
  const violations: FieldViolation[] = [];
  if (changed.has('start')) violations.push({ field: 'start', description: 'must not be after end' });
  if (changed.has('end')) violations.push({ field: 'end', description: 'must not be before start' });
  return violations;
}

/** CreateEvent: name is required; description, start and end are optional. */
export function checkNewEvent(event: Event, prospective: ServerManagedValues): { values: EventValues; violations: FieldViolation[] } {
  const violations: FieldViolation[] = [];
  const values: EventValues = { name: '', description: null, start: null, end: null };
  const changed = new Set<WritableEventField>();
  for (const field of WRITABLE_EVENT_FIELDS) {
    const raw = sent(event, field);
    if (raw === undefined) {
      if (field === 'name') violations.push({ field, description: 'is required' });
      continue;
    }
    const checked = checkValue(EVENT_RULES[field], raw);
    if ('error' in checked) {
      violations.push({ field, description: checked.error });
    } else {
      (values as unknown as Record<string, unknown>)[field] = checked.value;
      changed.add(field);
    }
  }
  for (const field of SERVER_MANAGED_EVENT_FIELDS) {
    if (carries(field, event) && !sameAsServer(field, event, prospective)) violations.push({ field, description: SERVER_MANAGED_MESSAGE });
  }
  violations.push(...windowViolations(values, changed));
  return { values, violations };
}

/** UpdateEvent: as UpdateTicket (see checkTicketChanges). */
export function checkEventChanges(
  event: Event,
  mask: readonly string[] | undefined,
  current: EventRecord,
): { changes: Partial<EventValues>; violations: FieldViolation[] } {
  const roles = { writable: WRITABLE_EVENT_FIELDS, serverManaged: SERVER_MANAGED_EVENT_FIELDS, ignored: IGNORED_EVENT_FIELDS, noun: 'event' };
  const paths = classifyMask(mask, roles, (field) => sent(event, field) !== undefined);
  const violations: FieldViolation[] = [...paths.unknown];
  const changes: Record<string, unknown> = {};
  for (const field of paths.writable) {
    const checked = checkValue(EVENT_RULES[field], sent(event, field));
    if ('error' in checked) violations.push({ field, description: checked.error });
    else changes[field] = checked.value;
  }
  for (const field of paths.serverManaged) {
    if (!sameAsServer(field, event, current)) violations.push({ field, description: SERVER_MANAGED_MESSAGE });
  }
  const typed = changes as Partial<EventValues>;
  violations.push(...windowViolations({ ...current, ...typed }, new Set(Object.keys(typed) as WritableEventField[])));
  return { changes: typed, violations };
}
