import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, request, signUpAndLogin, type Account } from '../support/http.js';
import { openApiValidator, type OpenApiValidator } from '../support/openapi.js';
import { schemaArbitrary, type JsonSchema } from '../support/schema-arbitrary.js';
import { startTestStack, type TestStack } from '../support/stack.js';

/**
 * The contract test of issue 20 item 5: requests generated from /openapi.json alone (every
 * operation; its parameters and JSON body from their schemas, schemaArbitrary) are replayed
 * against a started stack. Each answer must be no 5xx, a status the operation documents, with
 * a body its schema takes (test/support/openapi.ts); and a request the document allows is
 * not refused for its form (400 or 422) unless by a rule the document states in words only
 * (RULES_IN_WORDS below, each with its reason).
 *
 * Path parameters name the suite's own event, ticket, reservation and webhook, or a random
 * GUID; a DELETE takes random GUIDs only, so the fixtures live on. CI runs a fixed seed;
 * CONTRACT_SEED=random explores, a failure prints its seed and the shrunk request
 * (CONTRACT_SEED=<seed> npx vitest run test/gateway/openapi-contract.test.ts replays it);
 * CONTRACT_RUNS: requests per operation (20), each operation's runs cut after 0.8 s (a sign-up
 * hashes a password: a handful of them), so the whole stays under 50 s on a loaded 2-core machine.
 */
const SEED = process.env.CONTRACT_SEED === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.CONTRACT_SEED ?? 20261125);
const RUNS = Number(process.env.CONTRACT_RUNS ?? 20);
/** Bounds each operation's runs; the runs done by then count (a failure found is still shrunk and reported). */
const TIME_LIMIT_MS = Number(process.env.CONTRACT_TIME_LIMIT_MS ?? 800);

/**
 * Rules the document states in its descriptions, because JSON Schema cannot relate two
 * values or see the stored object: operationId -> the fields a schema-valid body may still
 * be refused for (422), and why.
 */
const RULES_IN_WORDS: Record<string, Record<string, string>> = {
  // Every paged list.
  '*': {
    cursor: 'opaque: only the cursor of a Link rel="next" of the same list is one',
    'Idempotency-Key': 'a key names one request: the same key again with another body is refused (its description; generated keys collide)',
  },
  createTicket: {
    min_orderable_amount_per_order: 'not above max_orderable_amount_per_order (an order rule between two fields)',
    max_orderable_amount_per_order: 'not below min_orderable_amount_per_order',
    available_from: 'before available_until (the sale window)',
    available_until: 'after available_from',
  },
  createEvent: { start: 'not after end', end: 'not before start' },
  createWebhook: {},
  reserveTicket: { amount: 'from the ticket\'s min to max orderable amount per order, a multiple of its increment (the stored ticket)' },
  confirmReservation: { barcodes: 'only for a ticket of barcode_type predefined, exactly the reservation\'s amount of them (the stored objects)' },
  // An order line's index is the line's; the rule is the same for every line (`lines[].field`).
  createOrder: {
    lines: 'each ticket at most once, at most 1,000 units in all, a ticket that is sold alone (combines_products false) only on its own (the stored tickets)',
    'lines[].ticket_id': 'a live ticket of this event (the stored objects)',
    'lines[].amount': 'from the ticket\'s min to max orderable amount per order, a multiple of its increment (the stored ticket); a coupon discounts whole lines only (the stored code)',
    coupon_code: 'a code of this event\'s coupons that applies to a line (the stored codes)',
  },
  confirmOrder: {
    'lines[].ticket_id': 'a ticket of one of the order\'s lines (the stored order)',
    'lines[].barcodes': 'only for a ticket of barcode_type predefined, exactly the line\'s amount of them (the stored objects)',
  },
  cancelReservation: { 'barcodes[]': 'each a barcode of this sale, named once (the stored object)' },
  cancelOrder: {
    'barcodes[]': 'each a barcode of this order, named once (the stored object)',
    cancellation_fee: 'at most the unit_total of the units cancelled, with at most the currency\'s digits (the stored order)',
  },
  createCoupon: {
    value: 'required for percentage, fixed and price and null for none; a percentage up to 100, an amount with at most the currency\'s digits (discount_type and the stored event)',
    ticket_ids: 'live tickets of this event, each once (the stored tickets)',
    valid_from: 'before valid_until (an order rule between two fields)',
    valid_until: 'after valid_from',
  },
  addCouponCodes: {
    codes: 'either codes or generate, not both and not neither (two fields)',
    generate: 'either codes or generate, not both',
    prefix: 'only with generate (two fields)',
    usage_count: 'only with generate: given codes carry their own (two fields)',
    applies_to_count: 'only with generate: given codes carry their own (two fields)',
  },
};
RULES_IN_WORDS.updateCoupon = RULES_IN_WORDS.createCoupon!;
RULES_IN_WORDS.updateTicket = RULES_IN_WORDS.createTicket!;
RULES_IN_WORDS.updateEvent = RULES_IN_WORDS.createEvent!;

const METHODS = ['get', 'post', 'put', 'delete'] as const;

interface Operation {
  method: string;
  template: string;
  operation: JsonSchema;
}

interface GeneratedRequest {
  path: string;
  headers: Record<string, string>;
  body?: unknown;
}

describe(`requests generated from /openapi.json (CONTRACT_SEED=${SEED})`, () => {
  let stack: TestStack;
  let account: Account;
  let document: JsonSchema;
  let validator: OpenApiValidator;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    // Private webhook targets allowed: whether a host is private depends on the operator's setting, which no schema can know.
    stack = await startTestStack({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    account = await signUpAndLogin(stack);
    document = (await request(`${stack.baseUrl}/openapi.json`)).body;
    validator = openApiValidator(document);
    const post = async (path: string, json: unknown) => {
      const response = await request(`${stack.baseUrl}${path}`, { method: 'POST', headers: bearer(account.accessToken), json });
      expect(response.status, response.text).toBeLessThan(300);
      return response.body.guid as string;
    };
    ids.event = await post('/event', { name: 'Contract' });
    ids.ticket = await post(`/event/${ids.event}/ticket`, { name: 'Contract', vat_percentage: 21, available_stock: 100_000, max_orderable_amount_per_order: 1000 });
    ids.reservation = await post(`/ticket/${ids.ticket}/reservations`, { amount: 1 });
    ids.webhook = await post('/webhooks', { url: 'http://127.0.0.1:9/contract', events: ['*'] });
  });
  afterAll(() => stack?.stop());

  /** The suite's own object for a path parameter: by the path's first segment. */
  const knownId = (template: string): string | undefined => {
    const segment = template.split('/')[1];
    return { event: ids.event, ticket: ids.ticket, reservation: ids.reservation, webhooks: ids.webhook }[segment ?? ''];
  };

  const parameterArbitrary = (op: Operation, parameter: JsonSchema): fc.Arbitrary<string | undefined> => {
    const fromSchema = schemaArbitrary(document, parameter.schema).map(String);
    if (parameter.in === 'path') {
      const known = knownId(op.template);
      return op.method === 'delete' || !known ? fromSchema : fc.oneof({ arbitrary: fc.constant(known), weight: 4 }, { arbitrary: fromSchema, weight: 1 });
    }
    // The account's own company names it; a generated GUID is another company's (401).
    const values = parameter.name === 'Company' ? fc.oneof(fc.constantFrom(account.companyId, '*'), fromSchema) : fromSchema;
    return parameter.required ? values : fc.option(values, { nil: undefined });
  };

  const requestArbitrary = (op: Operation): fc.Arbitrary<GeneratedRequest> => {
    const parameters: JsonSchema[] = op.operation.parameters ?? [];
    const values = fc.tuple(...parameters.map((parameter) => parameterArbitrary(op, parameter)));
    let body: fc.Arbitrary<unknown> = fc.constant(undefined);
    if (op.operation.requestBody) {
      const requestBody = op.operation.requestBody.$ref ? document.components.requestBodies[op.operation.requestBody.$ref.split('/').pop()] : op.operation.requestBody;
      const json = schemaArbitrary(document, requestBody.content['application/json'].schema);
      body = requestBody.required === false ? fc.option(json, { nil: undefined }) : json;
    }
    return fc.tuple(values, body).map(([given, json]) => {
      let path = op.template;
      const query = new URLSearchParams();
      const headers: Record<string, string> = op.operation.security?.length === 0 ? {} : bearer(account.accessToken);
      parameters.forEach((parameter, i) => {
        const value = given[i];
        if (value === undefined) return;
        if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(value));
        else if (parameter.in === 'query') query.set(parameter.name, value);
        else headers[parameter.name.toLowerCase()] = value;
      });
      return { path: query.size ? `${path}?${query}` : path, headers, body: json };
    });
  };

  /** What is wrong with the answer to `sent` (nothing: []). */
  const problemsOf = async (op: Operation, sent: GeneratedRequest): Promise<string[]> => {
    const response = await fetch(`${stack.baseUrl}${sent.path}`, {
      method: op.method.toUpperCase(),
      headers: { ...sent.headers, ...(sent.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: sent.body === undefined ? undefined : JSON.stringify(sent.body),
    });
    const text = await response.text();
    const headers = Object.fromEntries(response.headers.entries());
    const problems = validator.response(op.method.toUpperCase(), sent.path, { status: response.status, headers, body: text });
    if (response.status >= 500) problems.push(`server error ${response.status}: ${text.slice(0, 300)}`);
    if (response.status === 400 || response.status === 422) {
      const inWords = { ...RULES_IN_WORDS['*'], ...RULES_IN_WORDS[op.operation.operationId] };
      const errors: Array<{ field: string; message: string }> = JSON.parse(text).errors ?? [];
      const refused = errors.filter((error) => !Object.hasOwn(inWords, error.field.replace(/\[\d+\]/g, '[]')));
      const tokenEndpoint = op.template.endsWith('/tokens') || op.template.endsWith('/tokens/revoke');
      // The token endpoints answer a well-formed request for a grant that does not hold with 400 (RFC 6749 invalid_grant and such).
      if (!tokenEndpoint && (errors.length === 0 || refused.length > 0)) problems.push(`a request the document allows was refused: ${response.status} ${text.slice(0, 300)}`);
    }
    return problems;
  };

  const operations = (): Operation[] => {
    const all: Operation[] = [];
    for (const [template, methods] of Object.entries<JsonSchema>(document.paths)) {
      for (const method of METHODS) if (methods[method]) all.push({ method, template, operation: methods[method] });
    }
    return all;
  };

  it('every operation: no server error, every answer as documented, nothing the document allows refused for its form', async () => {
    const all = operations();
    expect(all.length).toBeGreaterThan(30);
    let sent = 0;
    const failures: string[] = [];
    for (const op of all) {
      const property = fc.asyncProperty(requestArbitrary(op), async (generated) => {
        sent++;
        const problems = await problemsOf(op, generated);
        if (problems.length) throw new Error(`${op.method.toUpperCase()} ${generated.path} ${JSON.stringify(generated.body)}: ${problems.join('; ')}`);
      });
      // Every operation is tried; each failure is reported with its shrunk request.
      const result = await fc.check(property, { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false });
      // The operation is named too: a failure without an error of its own (a run cut short) says no more than "null".
      if (result.failed) failures.push(`${op.method.toUpperCase()} ${op.template}: ${String((result.errorInstance as Error | undefined)?.message ?? result.errorInstance ?? result.counterexample)}`);
    }
    console.info(`openapi contract: ${sent} requests over ${all.length} operations (CONTRACT_SEED=${SEED})`);
    expect(failures).toEqual([]);
  }, 240_000);
});
