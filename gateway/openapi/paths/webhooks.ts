import { WEBHOOK } from '../../../lib/webhooks/fields.js';
import { EVENT_ERRORS, guidParameter, itemOperations, type Paths } from '../operation.js';

/** Webhook endpoints (PRODUCT.md 10, docs/webhooks.md). */
export function webhookPaths(): Paths {
  const guid = guidParameter('guid', WEBHOOK);
  const item = itemOperations('webhooks', 'Webhook', WEBHOOK, {
    get: { summary: 'Get a webhook endpoint', description: 'The endpoint, without its secret, when it belongs to one of the request\'s companies (else 404).' },
    put: { summary: 'Update a webhook endpoint (partial)', description: 'Changes url, events, description or enabled; a private target is 422 naming url.' },
    delete: { summary: 'Delete a webhook endpoint', description: 'Nothing more is sent to it.' },
  });
  return {
    '/webhooks': {
      post: {
        tag: 'webhooks',
        operationId: 'createWebhook',
        summary: 'Register a webhook endpoint (needs exactly one company in scope)',
        description: 'Events of the company are POSTed to url, signed per Standard Webhooks with the secret of this answer (shown only here). A loopback, private, link-local or metadata target is 422 naming url unless the operator allows private targets.',
        body: 'WebhookCreate',
        ok: { status: 201, schema: 'WebhookCreated', headers: ['Location'] },
        errors: [...EVENT_ERRORS, 413, 415],
        parameters: ['Company', 'Idempotency-Key'],
      },
      get: {
        tag: 'webhooks',
        operationId: 'listWebhooks',
        summary: 'List webhook endpoints in creation order',
        description: 'Every endpoint of the request\'s companies (no secrets); with limit a page and a Link header with rel="next".',
        ok: { status: 200, schema: 'Webhook', array: true, headers: ['Link'] },
        errors: [400, 401, 422, 503, 504],
        parameters: ['Company', 'limit', 'cursor'],
      },
    },
    '/webhooks/{guid}': { ...item, delete: { ...item.delete!, errors: [...EVENT_ERRORS, 412] } },
    '/webhooks/{guid}/test': {
      post: {
        tag: 'webhooks',
        operationId: 'sendWebhookTest',
        summary: 'Send a webhook.test event to this endpoint',
        description: 'Queues a signed webhook.test event for this endpoint only; 202 with its id (the webhook-id header it arrives with).',
        ok: { status: 202, schema: 'WebhookTestQueued' },
        errors: EVENT_ERRORS,
        parameters: [guid, 'Company'],
      },
    },
    '/webhooks/{guid}/deliveries': {
      get: {
        tag: 'webhooks',
        operationId: 'listWebhookDeliveries',
        summary: 'The endpoint\'s recent delivery attempts, newest first',
        description: 'The latest 100 attempts: event id and type, attempt number, response status, duration, error, next retry time.',
        ok: { status: 200, schema: 'WebhookDelivery', array: true },
        errors: EVENT_ERRORS,
        parameters: [guid, 'Company'],
      },
    },
  };
}
