import type { FieldViolation } from '../../../lib/grpc/errors.js';
import { EVENT } from '../../../lib/fields/event.js';
import { checkChanges, checkNew, type ServerManagedValues } from './resource-checks.js';
import type { EventRecord, EventValues } from './event-fields.js';

function windowViolations(values: EventValues, changed: ReadonlySet<keyof EventValues>): FieldViolation[] {
  if (!values.start || !values.end || values.end.getTime() >= values.start.getTime()) return [];
  const violations: FieldViolation[] = [];
  if (changed.has('start')) violations.push({ field: 'start', description: 'must not be after end' });
  if (changed.has('end')) violations.push({ field: 'end', description: 'must not be before start' });
  return violations;
}

/** CreateEvent: name is required; description, start and end are optional. */
export function checkNewEvent(event: object, prospective: ServerManagedValues<typeof EVENT.fields>) {
  return checkNew(EVENT, event, prospective, windowViolations);
}

/** UpdateEvent: as UpdateTicket (see checkChanges). */
export function checkEventChanges(event: object, mask: readonly string[] | undefined, current: EventRecord) {
  return checkChanges(EVENT, event, mask, current, windowViolations);
}
