import type { Knex } from '../../../lib/db.js';
import {
  AddCouponCodesResponse,
  Coupon,
  CouponCode,
  type AddCouponCodesRequest,
  type CouponCodeInput,
  type CreateCouponRequest,
  type DeleteCouponCodeRequest,
  type DeleteCouponRequest,
  type ListCouponCodesRequest,
  type ListCouponCodesResponse,
  type ListCouponsRequest,
  type ListCouponsResponse,
  type UpdateCouponRequest,
} from '../../../lib/gen/ticketing/v1/coupon.js';
import { AMOUNT_TYPES, CODE_LIMITS, COUPON, COUPON_CODE_FIELDS, COUPON_FIELDS, MAX_CODES_PER_REQUEST } from '../../../lib/fields/coupon.js';
import { defaultsOf, fieldsWithRole } from '../../../lib/fields/kinds.js';
import { toMessageFields } from '../../../lib/fields/messages.js';
import { RpcError, type FieldViolation } from '../../../lib/grpc/errors.js';
import { newGuid } from '../../../lib/ids.js';
import { stockConflict } from '../../../lib/stock-conflicts.js';
import type { AuthenticatedCaller } from '../access/auth-check.js';
import { findInCompanies, notFound } from '../access/find-in-companies.js';
import { storedGuid } from '../access/request-guid.js';
import { decodePageToken, encodePageToken, pageSize } from '../common/paging.js';
import { conditionalVersion, retryWrite } from '../common/write-conflicts.js';
import type { IdempotentCreation } from '../idempotency/idempotent-creation.js';
import { CodeTaken, type CouponCodeRecord, type CouponRecord, type CouponStore, type NewCouponCode } from '../store/coupon-store.js';
import {
  CODE_RULE,
  codeKey,
  couponValueViolations,
  generateCode,
  isCode,
  isPrefix,
  PREFIX_RULE,
  ticketIdsViolations,
} from './coupon-rules.js';
import { etagOf } from './etag.js';
import type { EventService } from './event-service.js';
import { checkChanges, checkNew, type ServerManagedValues } from './resource-checks.js';
import { checkValue } from './field-rules.js';

const couponEtag = (record: Omit<CouponRecord, 'id'>) => etagOf(record.guid, record.version);

export function couponMessage(record: Omit<CouponRecord, 'id'>): Coupon {
  return Coupon.fromPartial(toMessageFields(COUPON_FIELDS, { ...record, etag: couponEtag(record) }) as Partial<Coupon>);
}

const codeMessage = (record: Omit<CouponCodeRecord, 'id'>): CouponCode => CouponCode.fromPartial(toMessageFields(COUPON_CODE_FIELDS, record) as Partial<CouponCode>);

const COUPON_SERVER_DEFAULTS = defaultsOf(COUPON_FIELDS, 'server-managed') as Omit<ServerManagedValues<typeof COUPON_FIELDS>, 'guid' | 'company_id' | 'event_id' | 'created_at'>;

const couponListKey = (eventGuid: string) => `coupons:${eventGuid}`;
const codeListKey = (couponGuid: string) => `coupon-codes:${couponGuid}`;

/** How often new codes are drawn when a generated one is taken already (about 59 bits each: practically never). */
const GENERATION_ATTEMPTS = 5;

/** ticket_ids as stored: each GUID lower-case (one that is no GUID stays as sent, and is refused as no ticket of the event). */
const storedTicketIds = <V extends { ticket_ids?: string[] | null }>(values: V): V =>
  values.ticket_ids ? { ...values, ticket_ids: values.ticket_ids.map((id) => storedGuid(id) ?? id) } : values;

/** Refuses with every violation found, if any. */
const refused = (violations: FieldViolation[]) => {
  if (violations.length) throw RpcError.invalidArgument(violations);
};

function codeTaken(code: string): RpcError {
  const message = code ? `The coupon code ${JSON.stringify(code)} is already in use within this event (codes are compared ignoring case); no code was added.` : undefined;
  return stockConflict('coupon_code_taken', message, code ? { code, coupon_code: code } : undefined);
}

/** The coupon catalogue (PRODUCT.md 15): coupons of an event and their codes, in the caller's effective company set. */
export class CouponService {
  constructor(
    private readonly store: CouponStore,
    private readonly events: EventService,
    private readonly creations: IdempotentCreation,
  ) {}

  private find(caller: AuthenticatedCaller, guid: string): Promise<CouponRecord> {
    return findInCompanies('Coupon', caller.companyIds, guid, (companyIds, id) => this.store.find(companyIds, id));
  }

  /**
   * The rules between fields and against the event, for the fields `changed`: value by
   * discount_type and currency, ticket_ids of the event. A field already refused by its own
   * rule (`found`) is not judged again.
   */
  private async couponViolations(
    values: Pick<CouponRecord, 'discount_type' | 'value' | 'ticket_ids'>,
    eventGuid: string,
    currency: string,
    changed: ReadonlySet<string>,
    found: readonly FieldViolation[],
  ): Promise<FieldViolation[]> {
    const refusedAlready = new Set(found.map((v) => v.field));
    const violations: FieldViolation[] = [];
    const valueClean = !refusedAlready.has('discount_type') && !refusedAlready.has('value');
    if (valueClean && (changed.has('discount_type') || changed.has('value'))) violations.push(...couponValueViolations(values.discount_type, values.value, currency));
    if (!refusedAlready.has('ticket_ids') && changed.has('ticket_ids') && values.ticket_ids) {
      violations.push(...ticketIdsViolations(values.ticket_ids, await this.store.liveTickets(eventGuid, values.ticket_ids)));
    }
    return violations;
  }

  /** Inside a write (the event's currency may have changed since the checks): the value still fits the event's currency (which may have changed since the checks). */
  private async recheckCurrency(trx: Knex, values: Pick<CouponRecord, 'discount_type' | 'value' | 'event_id'>): Promise<void> {
    const currency = await this.store.eventCurrency(trx, values.event_id);
    if (currency === undefined) throw notFound('Event', values.event_id);
    if ((AMOUNT_TYPES as readonly string[]).includes(values.discount_type)) refused(couponValueViolations(values.discount_type, values.value, currency));
  }

  async get(caller: AuthenticatedCaller, guid: string): Promise<Coupon> {
    return couponMessage(await this.find(caller, guid));
  }

  async list(caller: AuthenticatedCaller, request: ListCouponsRequest): Promise<ListCouponsResponse> {
    const event = await this.events.find(caller, request.event_id);
    const size = pageSize(request.page_size);
    const listKey = couponListKey(event.guid);
    const rows = await this.store.list(caller.companyIds, event.guid, decodePageToken(request.page_token, listKey), size + 1);
    const page = rows.slice(0, size);
    return { coupons: page.map(couponMessage), next_page_token: rows.length > size ? encodePageToken(listKey, page[page.length - 1]!.id) : '' };
  }

  async create(caller: AuthenticatedCaller, request: CreateCouponRequest, validateOnly: boolean): Promise<Coupon> {
    const coupon = request.coupon ?? Coupon.fromPartial({});
    const prepare = async () => {
      const event = await this.events.find(caller, request.event_id);
      const now = new Date();
      const prospective = { ...COUPON_SERVER_DEFAULTS, guid: newGuid(), company_id: event.company_id, event_id: event.guid, created_at: now };
      const checked = checkNew(COUPON, coupon, prospective);
      const { violations } = checked;
      const values = storedTicketIds(checked.values);
      violations.push(...(await this.couponViolations(values, event.guid, event.currency, new Set(['discount_type', 'value', 'ticket_ids']), violations)));
      refused(violations);
      const record = { ...prospective, ...values, updated_at: now, version: 1 };
      const write = async (trx: Knex) => {
        await this.events.holdLive(trx, caller, event.guid);
        await this.recheckCurrency(trx, record);
        await this.store.insert(record, trx);
      };
      return { result: couponMessage(record), write };
    };
    if (validateOnly) return (await prepare()).result;
    return this.creations.run(
      { caller, scope: 'CreateCoupon', requestId: request.request_id, request: [storedGuid(request.event_id) ?? request.event_id, Coupon.encode(coupon).finish()], codec: Coupon },
      prepare,
    );
  }

  async update(caller: AuthenticatedCaller, request: UpdateCouponRequest, validateOnly: boolean): Promise<Coupon> {
    const coupon = request.coupon ?? Coupon.fromPartial({});
    // An empty mask means the fields set; an empty repeated field is not set (AIP-134).
    const mask = request.update_mask?.length
      ? request.update_mask
      : fieldsWithRole(COUPON_FIELDS, 'writable').filter((field) => {
          const value = (coupon as unknown as Record<string, unknown>)[field];
          return value !== undefined && !(Array.isArray(value) && value.length === 0);
        });
    return retryWrite('coupon', async () => {
      const current = await this.find(caller, request.guid);
      const version = conditionalVersion('coupon', request.etag, () => ({ etag: couponEtag(current), version: current.version }));
      if (mask.length === 0) return couponMessage(current);
      const checked = checkChanges(COUPON, coupon, mask, current);
      const { guards, violations } = checked;
      const changes = storedTicketIds(checked.changes);
      const merged = { ...current, ...changes };
      const event = await this.events.find(caller, current.event_id);
      violations.push(...(await this.couponViolations(merged, current.event_id, event.currency, new Set(Object.keys(changes)), violations)));
      refused(violations);
      if (validateOnly) return couponMessage(current);
      // Always on the version read: the value's rule spans two fields, so a concurrent change of the other one is checked again.
      const updated = await this.store.update(caller.companyIds, current.guid, changes, {
        now: new Date(),
        version: version ?? current.version,
        guards,
        check: changes.discount_type !== undefined || changes.value !== undefined ? (trx) => this.recheckCurrency(trx, merged) : undefined,
      });
      return updated && couponMessage(updated);
    });
  }

  async delete(caller: AuthenticatedCaller, request: DeleteCouponRequest): Promise<void> {
    await retryWrite('coupon', async () => {
      const current = await this.find(caller, request.guid);
      const version = conditionalVersion('coupon', request.etag, () => ({ etag: couponEtag(current), version: current.version }));
      return (await this.store.softDelete(caller.companyIds, current.guid, { now: new Date(), version })) || undefined;
    });
  }

  /** A limit of a code (usage_count, applies_to_count): unset is 1, named in null_fields null, else a whole number from 1. */
  private static limit(field: (typeof CODE_LIMITS)[number], raw: number | undefined, nullFields: readonly string[], name: string, violations: FieldViolation[]): number | null {
    if (nullFields.includes(field)) return null;
    if (raw === undefined) return 1;
    const checked = checkValue(COUPON_CODE_FIELDS[field], raw);
    if ('error' in checked) {
      violations.push({ field: name, description: `${checked.error}, or null for no limit` });
      return null;
    }
    return checked.value as number;
  }

  /** The codes a request adds, checked (without the uniqueness against the database), or the codes to draw. */
  private static codesOf(request: AddCouponCodesRequest): { given?: NewCouponCode[]; generate?: { count: number; prefix: string; usage_count: number | null; applies_to_count: number | null } } {
    const violations: FieldViolation[] = [];
    const unknown = [...request.null_fields, ...request.codes.flatMap((code) => code.null_fields)].filter((field) => !(CODE_LIMITS as readonly string[]).includes(field));
    if (unknown.length) violations.push({ field: 'null_fields', description: `may name only ${CODE_LIMITS.join(' and ')}` });
    const generating = request.generate !== undefined;
    if (request.codes.length > 0 && generating) refused([...violations, { field: 'generate', description: 'must not be sent with codes' }]);
    const now = new Date();
    if (!generating) {
      // The prefix and the shared limits are for generated codes; given codes carry their own.
      if (request.prefix !== undefined) violations.push({ field: 'prefix', description: 'is only for generate' });
      for (const field of CODE_LIMITS) {
        if (request[field] !== undefined || request.null_fields.includes(field)) violations.push({ field, description: 'is only for generate: each code of codes carries its own' });
      }
      if (request.codes.length === 0) violations.push({ field: 'codes', description: 'is required (or generate): at least one code' });
      if (request.codes.length > MAX_CODES_PER_REQUEST) violations.push({ field: 'codes', description: `must hold at most ${MAX_CODES_PER_REQUEST} items` });
      refused(violations);
      const given = request.codes.map((input: CouponCodeInput, i): NewCouponCode => {
        const code = input.code ?? '';
        if (input.code === undefined) violations.push({ field: `codes[${i}].code`, description: 'is required' });
        else if (!isCode(code)) violations.push({ field: `codes[${i}].code`, description: CODE_RULE });
        return {
          code,
          code_key: codeKey(code),
          usage_count: CouponService.limit('usage_count', input.usage_count, input.null_fields, `codes[${i}].usage_count`, violations),
          applies_to_count: CouponService.limit('applies_to_count', input.applies_to_count, input.null_fields, `codes[${i}].applies_to_count`, violations),
          used_count: 0,
          created_at: now,
        };
      });
      refused(violations);
      const keys = new Set<string>();
      for (const code of given) {
        if (keys.has(code.code_key)) throw codeTaken(code.code);
        keys.add(code.code_key);
      }
      return { given };
    }
    const count = request.generate!;
    if (!Number.isInteger(count) || count < 1 || count > MAX_CODES_PER_REQUEST) violations.push({ field: 'generate', description: `must be a whole number from 1 to ${MAX_CODES_PER_REQUEST}` });
    const prefix = request.prefix ?? '';
    if (!isPrefix(prefix)) violations.push({ field: 'prefix', description: PREFIX_RULE });
    const usage_count = CouponService.limit('usage_count', request.usage_count, request.null_fields, 'usage_count', violations);
    const applies_to_count = CouponService.limit('applies_to_count', request.applies_to_count, request.null_fields, 'applies_to_count', violations);
    refused(violations);
    return { generate: { count, prefix, usage_count, applies_to_count } };
  }

  /** Codes given or generated, all or nothing, in one transaction; a taken one (ignoring case, within the event) is coupon_code_taken naming it. */
  async addCodes(caller: AuthenticatedCaller, request: AddCouponCodesRequest): Promise<AddCouponCodesResponse> {
    const asked = CouponService.codesOf(request);
    const coupon = await this.find(caller, request.guid);
    const draw = (): NewCouponCode[] => {
      const { count, prefix, usage_count, applies_to_count } = asked.generate!;
      const now = new Date();
      const drawn = new Map<string, NewCouponCode>();
      while (drawn.size < count) {
        const code = generateCode(prefix);
        drawn.set(codeKey(code), { code, code_key: codeKey(code), usage_count, applies_to_count, used_count: 0, created_at: now });
      }
      return [...drawn.values()];
    };
    const prepare = async () => {
      let codes = asked.given ?? draw();
      if (asked.generate) {
        // Drawn again while any is taken (never expected at about 59 bits a code).
        for (let i = 0; i < GENERATION_ATTEMPTS && (await this.store.takenKeys(coupon.event_id, codes.map((c) => c.code_key))).size > 0; i++) codes = draw();
      }
      const write = async (trx: Knex) => {
        if (!(await this.store.insertCodes(trx, coupon.guid, coupon.event_id, codes))) throw notFound('Coupon', request.guid);
      };
      return { result: AddCouponCodesResponse.fromPartial({ codes: codes.map(codeMessage) }), write };
    };
    const requestBytes = JSON.stringify({ ...request, request_id: undefined, guid: storedGuid(request.guid) ?? request.guid });
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.creations.run({ caller, scope: 'AddCouponCodes', requestId: request.request_id, request: [requestBytes], codec: AddCouponCodesResponse }, prepare);
      } catch (err) {
        if (!(err instanceof CodeTaken)) throw err;
        if (asked.generate && attempt < GENERATION_ATTEMPTS) continue;
        if (err.code) throw codeTaken(err.code);
        // Taken by a concurrent request: name the first of ours that is taken now.
        const taken = await this.store.takenKeys(coupon.event_id, (asked.given ?? []).map((c) => c.code_key));
        throw codeTaken(asked.given?.find((c) => taken.has(c.code_key))?.code ?? '');
      }
    }
  }

  async listCodes(caller: AuthenticatedCaller, request: ListCouponCodesRequest): Promise<ListCouponCodesResponse> {
    const coupon = await this.find(caller, request.guid);
    const size = pageSize(request.page_size);
    const listKey = codeListKey(coupon.guid);
    const rows = await this.store.listCodes(coupon.guid, decodePageToken(request.page_token, listKey), size + 1);
    const page = rows.slice(0, size);
    return { codes: page.map(codeMessage), next_page_token: rows.length > size ? encodePageToken(listKey, page[page.length - 1]!.id) : '' };
  }

  async deleteCode(caller: AuthenticatedCaller, request: DeleteCouponCodeRequest): Promise<void> {
    const coupon = await this.find(caller, request.guid);
    if (!(await this.store.deleteCode(coupon.guid, codeKey(request.code)))) throw RpcError.notFound('Coupon code', { type: 'ticketing.v1.CouponCode', name: request.code });
  }
}
