import { status } from '@grpc/grpc-js';
import { randomBytes } from 'node:crypto';
import type { Knex } from '../../../lib/db.js';
import { defaultsOf, fieldsWithRole } from '../../../lib/fields/kinds.js';
import { toMessageFields } from '../../../lib/fields/messages.js';
import { DELIVERY_FIELDS, WEBHOOK, WEBHOOK_FIELDS } from '../../../lib/webhooks/fields.js';
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES } from '../../../lib/webhooks/event-types.js';
import {
  Delivery,
  Webhook,
  type CreateWebhookRequest,
  type DeleteWebhookRequest,
  type ListDeliveriesRequest,
  type ListDeliveriesResponse,
  type ListWebhooksRequest,
  type ListWebhooksResponse,
  type SendTestEventResponse,
  type UpdateWebhookRequest,
} from '../../../lib/gen/ticketing/v1/webhook.js';
import { RpcError, type FieldViolation } from '../../../lib/grpc/errors.js';
import { newGuid } from '../../../lib/ids.js';
import { resolveTarget, TargetRefused, urlProblem, URL_RULE } from '../../../lib/webhooks/targets.js';
import { ADDRESS_HOST_RULE, hasUrlForm, URL_FORM_RULE } from '../../../lib/webhooks/url-pattern.js';
import type { AuthenticatedCaller } from '../access/auth-check.js';
import { etagOf } from '../catalogue/etag.js';
import { decodePageToken, encodePageToken, pageSize } from '../common/paging.js';
import { checkChanges, checkNew, type ServerManagedValues } from '../catalogue/resource-checks.js';
import type { IdempotentCreation } from '../idempotency/idempotent-creation.js';
import { findInCompanies } from '../access/find-in-companies.js';
import type { WebhookRecord, WebhookStore } from '../store/webhook-store.js';
import { conditionalVersion, retryWrite } from '../common/write-conflicts.js';

const webhookEtag = (record: Omit<WebhookRecord, 'id'>) => etagOf(record.guid, record.version);

/** The endpoint as its message; the secret only when asked (the creation answer). */
export function webhookMessage(record: Omit<WebhookRecord, 'id'>, withSecret = false): Webhook {
  const fields = toMessageFields(WEBHOOK_FIELDS, { ...record, secret: withSecret ? record.secret : null, etag: webhookEtag(record) });
  return Webhook.fromPartial(fields as Partial<Webhook>);
}

/** A new signing secret: whsec_ + base64 of 24 random bytes (Standard Webhooks). */
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

const EVENTS_RULE = `must be a non-empty list of event types (${WEBHOOK_EVENT_TYPES.join(', ')}) or ["${ALL_EVENTS}"]`;
const webhookListKey = (companyIds: readonly string[]) => `webhooks:${[...companyIds].sort().join(',')}`;

/** Endpoint management (PRODUCT.md 10) in the caller's effective company set. */
export class WebhookService {
  constructor(
    private readonly store: WebhookStore,
    private readonly creations: IdempotentCreation,
    private readonly allowPrivateTargets: boolean,
  ) {}

  private find(caller: AuthenticatedCaller, guid: string): Promise<WebhookRecord> {
    return findInCompanies('Webhook', caller.companyIds, guid, (companyIds, id) => this.store.find(companyIds, id));
  }

  /** `events` by its kind in the table (known types or *, at least one); `url` a public http(s) target (also after DNS). */
  private async targetViolations(values: { url?: string; events?: string[] }): Promise<FieldViolation[]> {
    const violations: FieldViolation[] = [];
    if (values.events !== undefined) {
      const { values: known, minItems }: { values: readonly string[]; minItems: number } = WEBHOOK_FIELDS.events.kind;
      const valid = values.events.length >= minItems && values.events.every((type) => known.includes(type));
      if (!valid) violations.push({ field: 'events', description: EVENTS_RULE });
    }
    if (values.url !== undefined) {
      // The form the document states first (lib/webhooks/url-pattern.ts), then the target. An
      // address where only names are taken: a private one says which setting allows it.
      const allow = this.allowPrivateTargets;
      const problem = hasUrlForm(values.url, allow)
        ? urlProblem(values.url, allow)
        : hasUrlForm(values.url, true)
          ? (urlProblem(values.url, false) ?? ADDRESS_HOST_RULE)
          : URL_FORM_RULE;
      if (problem) violations.push({ field: 'url', description: problem });
      else if (!this.allowPrivateTargets) {
        // A name that resolves into the private network is refused now too; one that does not resolve yet is kept (delivery checks again).
        const refused = await resolveTarget(values.url, false, 2000).then(
          () => false,
          (err: unknown) => err instanceof TargetRefused && err.message.includes('private'),
        );
        if (refused) violations.push({ field: 'url', description: URL_RULE });
      }
    }
    return violations;
  }

  async get(caller: AuthenticatedCaller, guid: string): Promise<Webhook> {
    return webhookMessage(await this.find(caller, guid));
  }

  async list(caller: AuthenticatedCaller, request: ListWebhooksRequest): Promise<ListWebhooksResponse> {
    const size = pageSize(request.page_size);
    const listKey = webhookListKey(caller.companyIds);
    const rows = await this.store.list(caller.companyIds, decodePageToken(request.page_token, listKey), size + 1);
    const page = rows.slice(0, size);
    return {
      webhooks: page.map((record) => webhookMessage(record)),
      next_page_token: rows.length > size ? encodePageToken(listKey, page[page.length - 1]!.id) : '',
    };
  }

  async create(caller: AuthenticatedCaller, request: CreateWebhookRequest, validateOnly: boolean): Promise<Webhook> {
    if (caller.companyIds.length !== 1) {
      throw new RpcError(status.INVALID_ARGUMENT, 'Creating a webhook needs exactly one company: send a Company header naming the company whose events it receives.');
    }
    const webhook = request.webhook ?? Webhook.fromPartial({});
    const prepare = async () => {
      const now = new Date();
      const prospective: ServerManagedValues<typeof WEBHOOK_FIELDS> = {
        ...(defaultsOf(WEBHOOK_FIELDS, 'server-managed') as object),
        guid: newGuid(),
        company_id: caller.companyIds[0]!,
        secret: newSecret(),
        created_at: now,
      };
      // The secret is never taken from a request.
      const { values, violations } = checkNew(WEBHOOK, { ...webhook, secret: '' }, prospective);
      violations.push(...(await this.targetViolations(values)));
      if (violations.length) throw RpcError.invalidArgument(violations);
      const record = { ...prospective, ...values, events: [...new Set(values.events)], updated_at: now, version: 1 };
      return { result: webhookMessage(record, true), write: (trx: Knex) => this.store.insert(record, trx) };
    };
    if (validateOnly) return (await prepare()).result;
    return this.creations.run(
      { caller, scope: 'CreateWebhook', requestId: request.request_id, request: [Webhook.encode(webhook).finish()], codec: Webhook },
      prepare,
    );
  }

  async update(caller: AuthenticatedCaller, request: UpdateWebhookRequest, validateOnly: boolean): Promise<Webhook> {
    const webhook = { ...(request.webhook ?? Webhook.fromPartial({})), secret: '' };
    // An empty mask means the fields set; an empty repeated field is not set (AIP-134).
    const mask = request.update_mask?.length
      ? request.update_mask
      : fieldsWithRole(WEBHOOK_FIELDS, 'writable').filter((field) => {
          const value = (webhook as Record<string, unknown>)[field];
          return value !== undefined && !(Array.isArray(value) && value.length === 0);
        });
    return retryWrite('webhook', async () => {
      const current = await this.find(caller, request.guid);
      const version = conditionalVersion('webhook', request.etag, () => ({ etag: webhookEtag(current), version: current.version }));
      // Nothing sent (`{}` over REST): nothing to check or change. checkChanges would read an
      // empty mask as "the fields set" again, and the empty `events` list as one of them.
      if (mask.length === 0) return webhookMessage(current);
      const { changes, violations } = checkChanges(WEBHOOK, webhook, mask, current);
      violations.push(...(await this.targetViolations(changes)));
      if (violations.length) throw RpcError.invalidArgument(violations);
      if (changes.events) changes.events = [...new Set(changes.events)];
      if (validateOnly) return webhookMessage(current);
      const updated = await this.store.update(caller.companyIds, current.guid, changes, { now: new Date(), version });
      return updated && webhookMessage(updated);
    });
  }

  async delete(caller: AuthenticatedCaller, request: DeleteWebhookRequest): Promise<void> {
    await retryWrite('webhook', async () => {
      const current = await this.find(caller, request.guid);
      const version = conditionalVersion('webhook', request.etag, () => ({ etag: webhookEtag(current), version: current.version }));
      return (await this.store.softDelete(caller.companyIds, current.guid, { now: new Date(), version })) || undefined;
    });
  }

  async sendTest(caller: AuthenticatedCaller, guid: string): Promise<SendTestEventResponse> {
    const endpoint = await this.find(caller, guid);
    return { event_id: await this.store.queueTest(endpoint) };
  }

  async deliveries(caller: AuthenticatedCaller, request: ListDeliveriesRequest): Promise<ListDeliveriesResponse> {
    const endpoint = await this.find(caller, request.guid);
    const attempts = await this.store.attempts(endpoint.guid, pageSize(request.page_size));
    return { deliveries: attempts.map((attempt) => Delivery.fromPartial(toMessageFields(DELIVERY_FIELDS, attempt) as Partial<Delivery>)) };
  }
}
