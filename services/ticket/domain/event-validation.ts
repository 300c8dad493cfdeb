import type { FieldViolation } from '../../../lib/grpc/errors.js';
import type { Event } from '../../../lib/gen/ticketing/v1/event.js';
import { checkText, checkTimestamp, sameGuid, sameSecond } from './field-checks.js';
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

type Checked = { value: EventValues[WritableEventField] } | { error: string };

/** `raw` is the message's value: undefined means null. */
function checkValue(field: WritableEventField, raw: unknown): Checked {
  if (raw === undefined) return field === 'name' ? { error: 'must not be null' } : { value: null };
  let error: string | undefined;
  if (field === 'name') error = checkText(raw as string, { max: 255, notBlank: true });
  else if (field === 'description') error = checkText(raw as string, { max: 10_000 });
  else error = checkTimestamp(raw as Date);
  return error ? { error } : { value: raw as EventValues[WritableEventField] };
}

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
    const checked = checkValue(field, raw);
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
    const checked = checkValue(field, sent(event, field));
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
