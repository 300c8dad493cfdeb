import { status } from '@grpc/grpc-js';
import { systemClock, type Clock } from '../../../lib/clock.js';
import type { Knex } from '../../../lib/db.js';
import {
  Event,
  type CreateEventRequest,
  type DeleteEventRequest,
  type ListEventsRequest,
  type ListEventsResponse,
  type UpdateEventRequest,
} from '../../../lib/gen/ticketing/v1/event.js';
import { EVENT, EVENT_FIELDS } from '../../../lib/fields/event.js';
import { defaultsOf } from '../../../lib/fields/kinds.js';
import { RpcError } from '../../../lib/grpc/errors.js';
import { newGuid } from '../../../lib/ids.js';
import type { AuthenticatedCaller } from '../access/auth-check.js';
import type { EventRecord } from './event-fields.js';
import { checkChanges, checkNew, type ServerManagedValues } from './resource-checks.js';
import { decodePageToken, encodePageToken, eventListKey, pageSize } from '../common/paging.js';
import type { IdempotentCreation } from '../idempotency/idempotent-creation.js';
import { findInCompanies, notFound } from '../access/find-in-companies.js';
import { conditionalVersion, retryWrite } from '../common/write-conflicts.js';
import { eventEtag, eventMessage } from './messages.js';
import type { EventStore } from '../store/event-store.js';
import { eventChange, ticketChange } from './catalogue-changes.js';
import { StockEngine } from '../stock/stock-engine.js';
import { holdsStock } from '../../../lib/fields/ticket.js';
import { recordChange } from '../store/outbox-store.js';
import { stockConflict } from '../../../lib/stock-conflicts.js';
import { currencyDigits, DEFAULT_CURRENCY } from '../../../lib/money.js';
import { priceViolations } from './price-rules.js';
import { AMOUNT_TYPES } from '../../../lib/fields/coupon.js';
import { amountFits } from './coupon-rules.js';

/** The server-managed values of a new event that are not set per event (deleted_at starts at null). */
const EVENT_SERVER_DEFAULTS = defaultsOf(EVENT_FIELDS, 'server-managed') as Omit<ServerManagedValues<typeof EVENT_FIELDS>, 'guid' | 'company_id' | 'created_at'>;

/** The rules of EventService, in the caller's effective company set. */
export class EventService {
  constructor(
    private readonly events: EventStore,
    private readonly creations: IdempotentCreation,
    /** The currency of an event created without one (DEFAULT_CURRENCY). */
    private readonly defaultCurrency: string = DEFAULT_CURRENCY,
    /** Where the deletion's settling of due reservations reads "now" (lib/clock.ts). */
    private readonly clock: Clock = systemClock,
  ) {}

  /** A live event of the caller's companies, else NOT_FOUND. */
  find(caller: AuthenticatedCaller, guid: string): Promise<EventRecord> {
    return findInCompanies('Event', caller.companyIds, guid, (companyIds, id) => this.events.find(companyIds, id));
  }

  /** Inside a transaction that adds to the event: NOT_FOUND when it was deleted meanwhile (see EventStore.holdLive). */
  async holdLive(trx: Knex, caller: AuthenticatedCaller, guid: string): Promise<void> {
    if (!(await this.events.holdLive(trx, caller.companyIds, guid))) throw notFound('Event', guid);
  }

  async get(caller: AuthenticatedCaller, guid: string): Promise<Event> {
    return eventMessage(await this.find(caller, guid));
  }

  async list(caller: AuthenticatedCaller, request: ListEventsRequest): Promise<ListEventsResponse> {
    const size = pageSize(request.page_size);
    const listKey = eventListKey(caller.companyIds);
    const after = decodePageToken(request.page_token, listKey);
    const rows = await this.events.list(caller.companyIds, after, size + 1);
    const page = rows.slice(0, size);
    return {
      events: page.map(eventMessage),
      next_page_token: rows.length > size ? encodePageToken(listKey, page[page.length - 1]!.id) : '',
    };
  }

  async create(caller: AuthenticatedCaller, request: CreateEventRequest, validateOnly: boolean): Promise<Event> {
    if (caller.companyIds.length !== 1) {
      throw new RpcError(
        status.INVALID_ARGUMENT,
        'Creating an event needs exactly one company: send a Company header naming the company the event belongs to.',
      );
    }
    const sent = request.event ?? Event.fromPartial({});
    const event = { ...sent, currency: sent.currency ?? this.defaultCurrency };
    const prepare = async () => {
      const now = new Date();
      const prospective = { ...EVENT_SERVER_DEFAULTS, guid: newGuid(), company_id: caller.companyIds[0]!, created_at: now };
      const { values, violations } = checkNew(EVENT, event, prospective);
      if (violations.length) throw RpcError.invalidArgument(violations);
      const record = { ...prospective, ...values, updated_at: now, version: 1 };
      const write = async (trx: Knex) => {
        await this.events.insert(record, trx);
        await recordChange(trx, eventChange('event.created', record));
      };
      return { result: eventMessage(record), write };
    };
    if (validateOnly) return (await prepare()).result;
    return this.creations.run(
      { caller, scope: 'CreateEvent', requestId: request.request_id, request: [Event.encode(event).finish()], codec: Event },
      prepare,
    );
  }

  async update(caller: AuthenticatedCaller, request: UpdateEventRequest, validateOnly: boolean): Promise<Event> {
    const event = request.event ?? Event.fromPartial({});
    return retryWrite('event', async () => {
      const current = await this.find(caller, request.guid);
      const version = conditionalVersion('event', request.etag, () => ({ etag: eventEtag(current), version: current.version }));
      const { changes, guards, violations } = checkChanges(EVENT, event, request.update_mask, current);
      if (violations.length) throw RpcError.invalidArgument(violations);
      if (validateOnly) return eventMessage(current);
      const currency = changes.currency !== undefined && changes.currency !== current.currency ? changes.currency : undefined;
      const updated = await this.events.update(caller.companyIds, current.guid, changes, {
        now: new Date(),
        version,
        guards,
        change: (e) => eventChange('event.updated', e),
        check: currency === undefined ? undefined : (trx) => this.refuseCurrencyChange(trx, current.guid, currency),
      });
      return updated && eventMessage(updated);
    });
  }

  /**
   * What the event sells in may change only while nothing is sold or held (409
   * currency_locked), and only to a currency whose digits hold every ticket's min_price and
   * every fixed or price coupon's value (422 naming currency). Under the tickets' locks, so no
   * order is priced meanwhile.
   */
  private async refuseCurrencyChange(trx: Knex, eventGuid: string, currency: string): Promise<void> {
    const { selling, minPrices, couponAmounts } = await this.events.lockSales(trx, eventGuid, AMOUNT_TYPES);
    if (selling) throw stockConflict('currency_locked');
    if (minPrices.some((price) => priceViolations(price, currency).length > 0)) {
      throw RpcError.invalidArgument([{ field: 'currency', description: `must have as many minor digits as every ticket's min_price needs: ${currency} has ${currencyDigits(currency)}` }]);
    }
    if (couponAmounts.some((value) => !amountFits(value, currency))) {
      throw RpcError.invalidArgument([{ field: 'currency', description: `must have as many minor digits as every fixed or price coupon's value needs: ${currency} has ${currencyDigits(currency)}` }]);
    }
  }

  /** Soft delete; the event's tickets go with it. */
  async delete(caller: AuthenticatedCaller, request: DeleteEventRequest): Promise<void> {
    await retryWrite('event', async () => {
      const current = await this.find(caller, request.guid);
      const version = conditionalVersion('event', request.etag, () => ({ etag: eventEtag(current), version: current.version }));
      const now = new Date();
      const deleted = await this.events.softDelete(caller.companyIds, current.guid, {
        now,
        version,
        holdsStock: async (trx, ticketGuids) => (await StockEngine.lockAndSettle(trx, ticketGuids, this.clock.now())).some(holdsStock),
        changes: (event, tickets) => [eventChange('event.deleted', event), ...tickets.map((ticket) => ticketChange('ticket.deleted', ticket, now))],
      });
      return deleted || undefined;
    });
  }
}
