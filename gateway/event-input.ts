import { Event } from '../lib/gen/ticketing/v1/event.js';
import type { FieldViolation } from '../lib/grpc/errors.js';
import type { BodyKind } from './body.js';
import { messageFields, translateBody } from './body-input.js';
import type { FieldType } from './field-input.js';

/** Every field of the event object and the type its protobuf field carries. */
export const EVENT_FIELDS: ReadonlyMap<string, FieldType> = new Map<string, FieldType>([
  ['guid', 'text'],
  ['company_id', 'text'],
  ['name', 'text'],
  ['description', 'nullable-text'],
  ['start', 'nullable-timestamp'],
  ['end', 'nullable-timestamp'],
  ['status', 'ignored'],
  ['created_at', 'timestamp'],
  ['updated_at', 'ignored'],
  ['deleted_at', 'nullable-timestamp'],
]);

export interface EventInput {
  event: Event;
  updateMask: string[];
  violations: FieldViolation[];
}

/** POST /event body -> CreateEventRequest.event. */
export function newEventInput(body: Record<string, unknown>, kind: BodyKind): EventInput {
  const translated = translateBody(body, kind, EVENT_FIELDS, { unknownKeys: 'refuse', noun: 'event' });
  return { event: Event.fromPartial(messageFields<Event>(translated.values)), updateMask: [], violations: translated.violations };
}

/** PUT /event/:guid body -> UpdateEventRequest.event and its mask; a `guid` in the body may only repeat the path's. */
export function eventChangesInput(guid: string, body: Record<string, unknown>, kind: BodyKind): EventInput {
  const translated = translateBody(body, kind, EVENT_FIELDS, { unknownKeys: 'mask', noun: 'event' });
  const sentGuid = translated.values.get('guid');
  if (typeof sentGuid === 'string' && sentGuid.toLowerCase() !== guid.toLowerCase()) {
    translated.violations.push({ field: 'guid', description: 'is managed by the service and cannot be changed' });
    translated.mask = translated.mask.filter((path) => path !== 'guid');
  }
  const event = Event.fromPartial({ ...messageFields<Event>(translated.values), guid });
  return { event, updateMask: translated.mask, violations: translated.violations };
}
