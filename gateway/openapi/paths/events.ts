import { EVENT } from '../../../lib/fields/event.js';
import { EVENT_ERRORS, itemOperations, type Paths } from '../operation.js';

/** Events (the ticket service). */
export function eventPaths(): Paths {
  const item = itemOperations('events', 'Event', EVENT, {
    get: { summary: 'Get an event', description: 'The event, when it belongs to one of the request\'s companies (else 404).' },
    put: {
      summary: 'Update an event (partial)',
      description: 'Changes the fields sent. Its currency cannot change while the event has a live or confirmed sale: 409 currency_locked.',
    },
    delete: { summary: 'Delete an event and its tickets (soft)', description: 'Marks the event and every ticket of it deleted.' },
  });
  return {
    '/event': {
      post: {
        tag: 'events',
        operationId: 'createEvent',
        summary: 'Create an event (needs exactly one company in scope)',
        description: 'The event belongs to the one company of the request (the token\'s, or the one the Company header names; 400 when several are in scope). Only name is required. An Idempotency-Key makes a retry return the first response.',
        body: 'EventCreate',
        ok: { status: 201, schema: 'Event', headers: ['Location', 'ETag'] },
        errors: [...EVENT_ERRORS, 413, 415],
        parameters: ['Company', 'Idempotency-Key'],
      },
      get: {
        tag: 'events',
        operationId: 'listEvents',
        summary: 'List events in creation order (all, streamed, or a page with limit)',
        description: 'Without limit every event of the request\'s companies comes back in one streamed array; with limit a page, and a Link header with rel="next" while more follow.',
        ok: { status: 200, schema: 'Event', array: true, headers: ['Link'] },
        errors: [400, 401, 422, 503, 504],
        parameters: ['Company', 'limit', 'cursor'],
      },
    },
    '/event/{guid}': { ...item, put: { ...item.put!, errors: [...item.put!.errors, 409] } },
  };
}
