import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoInternals } from '../tickets/helpers.js';
import { bearer, request, signUpAndLogin, type Account } from '../support/http.js';
import { openApiValidator, type OpenApiValidator } from '../support/openapi.js';
import { rawRequest, type RawResponse } from '../support/raw-http.js';
import { startTestStack, type TestStack } from '../support/stack.js';

/**
 * Property-based fuzzing of the running REST API (issue 7): random methods, paths, query
 * strings, header bytes (every byte 0-255 in Authorization, Company, Idempotency-Key,
 * If-Match) and bodies (JSON, URL-encoded, multipart, junk). Oracles: no 5xx but a
 * documented 503/504, every answer valid against /openapi.json, no internals in a body,
 * and another company's data intact afterwards.
 *
 * CI runs a fixed seed, so a landing never depends on luck; FUZZ_SEED=random explores new inputs
 * (FUZZ_SEED=random FUZZ_RUNS=4000 npx vitest run test/fuzz), and a failure is replayed with the
 * seed it prints: FUZZ_SEED=<seed> npx vitest run test/fuzz. FUZZ_RUNS: runs per property (400).
 */
const FIXED_SEED = 20261123;
const SEED = process.env.FUZZ_SEED === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED ?? FIXED_SEED);
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
/** Bounds each property under a loaded machine; runs done by then count, the rest are skipped. */
const TIME_LIMIT_MS = 15_000;

const GRPC_INTERNALS = /RST_STREAM|Bandwidth exhausted|grpc-js|Metadata (string )?value|Received message larger/i;

interface FuzzRequest {
  method: string;
  path: string;
  headers: Array<[string, string]>;
  body?: Buffer;
}

describe(`REST API fuzzing (FUZZ_SEED=${SEED})`, () => {
  let stack: TestStack;
  /** Owns the data that must come out intact: its token is never used by the fuzzer. */
  let owner: Account;
  /** The fuzzer's own account: its token reaches the services, its data may change. */
  let fuzzer: Account;
  let validator: OpenApiValidator;
  const ids: Record<string, string> = {};
  let ownerBefore: Record<string, unknown>;
  let home: string;

  const readOwnerData = async () => {
    const read = async (path: string) => {
      const res = await request(`${stack.baseUrl}${path}`, { headers: bearer(owner.accessToken) });
      return { status: res.status, etag: res.headers.get('etag'), body: res.body };
    };
    return {
      event: await read(`/event/${ids.ownerEvent}`),
      ticket: await read(`/ticket/${ids.ownerTicket}`),
      tickets: await read(`/event/${ids.ownerEvent}/ticket`),
    };
  };

  beforeAll(async () => {
    stack = await startTestStack();
    owner = await signUpAndLogin(stack);
    fuzzer = await signUpAndLogin(stack);
    validator = openApiValidator((await request(`${stack.baseUrl}/openapi.json`)).body);
    for (const [who, prefix] of [[owner, 'owner'], [fuzzer, 'fuzzer']] as const) {
      const event = await request(`${stack.baseUrl}/event`, { method: 'POST', headers: bearer(who.accessToken), json: { name: `${prefix} event` } });
      const ticket = await request(`${stack.baseUrl}/event/${event.body.guid}/ticket`, {
        method: 'POST',
        headers: bearer(who.accessToken),
        json: { name: `${prefix} ticket`, vat_percentage: 21, available_stock: 10 },
      });
      expect(ticket.status).toBe(201);
      ids[`${prefix}Event`] = event.body.guid;
      ids[`${prefix}Ticket`] = ticket.body.guid;
      ids[`${prefix}Company`] = who.companyId;
    }
    // Where the fuzzer's tickets are created: not among the GUIDs it may DELETE.
    home = (await request(`${stack.baseUrl}/event`, { method: 'POST', headers: bearer(fuzzer.accessToken), json: { name: 'home' } })).body.guid;
    ownerBefore = await readOwnerData();
  });
  afterAll(async () => stack?.stop());

  // ---- arbitraries (made once the accounts exist) ----

  const arbitraries = () => {

    /** Any bytes 0-255, sent as they are (latin1). */
    const bytes = (maxLength: number) => fc.array(fc.integer({ min: 0, max: 255 }), { maxLength }).map((codes) => String.fromCharCode(...codes));
    /** A value with one random byte (0-255) put somewhere into it. */
    const withByte = (value: string) =>
      fc.tuple(fc.integer({ min: 0, max: 255 }), fc.nat({ max: value.length })).map(([byte, at]) => value.slice(0, at) + String.fromCharCode(byte) + value.slice(at));

    const guid = () => fc.constantFrom(...Object.values(ids));
    const segment = fc.oneof(
      { weight: 4, arbitrary: fc.oneof(guid(), fc.uuid()) },
      { weight: 2, arbitrary: fc.string({ maxLength: 40 }).map(encodeURIComponent) },
      { weight: 1, arbitrary: fc.constantFrom('..', '%00', '%2F', '%ZZ', '.', '%C0%AE', 'ticket', 'event', '~', "'%20OR%201=1--") },
    );
    const path = fc.oneof(
      fc.constantFrom('/event', '/ticket', '/auth/users/me', '/auth/companies', '/auth/clients', '/auth/tokens', '/auth/tokens/revoke', '/auth/users'),
      segment.map((s) => `/event/${s}`),
      segment.map((s) => `/event/${s}/ticket`),
      segment.map((s) => `/ticket/${s}`),
      segment.map((s) => `/auth/clients/${s}`),
      fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join('/')}`),
    );
    const queryValue = fc.oneof(fc.integer({ min: -5, max: 2000 }).map(String), fc.string({ maxLength: 30 }), fc.constant(''));
    const query = fc.option(
      fc
        .array(fc.tuple(fc.oneof(fc.constantFrom('limit', 'cursor', 'limit[]', 'cursor[a]'), fc.string({ maxLength: 10 })), queryValue), { maxLength: 4 })
        .map((pairs) => `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`),
      { nil: '' },
    );

    /** `arbitrary` in `percent` of the requests, else absent. */
    const sometimes = <T>(arbitrary: fc.Arbitrary<T>, percent: number) =>
      fc.oneof({ weight: 100 - percent, arbitrary: fc.constant(undefined) }, { weight: percent, arbitrary });
    /** Plausible values mostly; hostile bytes with weight `hostile` (of 10). */
    const mostly = <T>(plausible: fc.Arbitrary<T>, hostileBytes: fc.Arbitrary<T>, hostile: number) =>
      fc.oneof({ weight: 10 - hostile, arbitrary: plausible }, { weight: hostile, arbitrary: hostileBytes });

    const headers = (hostile: number) => {
      const authorization = mostly(
        fc.oneof(
          { weight: 6, arbitrary: fc.constant(`Bearer ${fuzzer.accessToken}`) },
          { weight: 1, arbitrary: fc.constantFrom('Basic YTpi', 'Bearer', 'bearer  x', `Bearer ${owner.accessToken.slice(0, -2)}xx`, 'Bearer a.b.c') },
        ),
        fc.oneof(withByte(`Bearer ${fuzzer.accessToken}`), bytes(40).map((b) => `Bearer ${b}`), bytes(60)),
        hostile,
      );
      const company = mostly(fc.constantFrom(ids.fuzzerCompany!, ids.ownerCompany!, '*', `${ids.fuzzerCompany}, *`, 'not-a-guid', ''), fc.oneof(bytes(50), withByte(ids.fuzzerCompany!)), hostile);
      const idempotencyKey = mostly(fc.string({ minLength: 0, maxLength: 300 }), bytes(300), hostile);
      const ifMatch = mostly(fc.constantFrom('*', '"nope"', 'W/"x"', '"a", "b"', ''), bytes(40), hostile);
      return fc
        .record({
          authorization: sometimes(authorization, 90),
          company: sometimes(fc.array(company, { minLength: 1, maxLength: 3 }), 25),
          idempotencyKey: sometimes(idempotencyKey, 25),
          ifMatch: sometimes(ifMatch, 25),
        })
        .map(({ authorization, company, idempotencyKey, ifMatch }) => {
          const list: Array<[string, string]> = [];
          if (authorization !== undefined) list.push(['Authorization', authorization]);
          for (const value of company ?? []) list.push(['Company', value]);
          if (idempotencyKey !== undefined) list.push(['Idempotency-Key', idempotencyKey]);
          if (ifMatch !== undefined) list.push(['If-Match', ifMatch]);
          return list;
        });
    };

    const FIELDS = ['name', 'description', 'vat_percentage', 'available_stock', 'min_price', 'available_from', 'available_until', 'status_overrule', 'increment', 'start', 'end', 'guid', 'company_id', 'grant_type', 'username', 'password', 'token', 'email'];
    const fieldName = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...FIELDS) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) });
    const fieldValue = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.string({ maxLength: 50 }),
      fc.constantFrom('9.99', '-1', '1e400', 'NaN', '2027-01-01T10:00:00+01:00', '0000-00-00', 'null', '', '\u0000', "'; DROP TABLE tickets; --"),
    );
    const randomFields = fc.dictionary(fieldName, fieldValue, { maxKeys: 6 });
    /** A ticket or an event that may well be valid, plus a few random fields now and then. */
    const ticket = fc.record(
      { name: fc.string({ minLength: 1, maxLength: 40 }), vat_percentage: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constantFrom('9', '21.5')), available_stock: fc.nat({ max: 10_000 }), min_price: fc.constantFrom('0', '9.99', 12.5), description: fc.string({ maxLength: 200 }) },
      { requiredKeys: ['name', 'vat_percentage'] },
    );
    const event = fc.record(
      { name: fc.string({ minLength: 1, maxLength: 40 }), description: fc.string({ maxLength: 200 }), start: fc.constantFrom('2027-01-01T10:00:00+01:00', '2027-06-01T00:00:00Z') },
      { requiredKeys: ['name'] },
    );
    const plausibleFields = fc
      .tuple(fc.oneof(ticket, event), fc.option(fc.dictionary(fieldName, fieldValue, { maxKeys: 2 }), { nil: {}, freq: 2 }))
      .map(([plausible, extra]): Record<string, unknown> => ({ ...extra, ...plausible }));
    const fields = fc.oneof(randomFields, plausibleFields, plausibleFields);
    const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value) ?? '');
    const BOUNDARY = 'fuzz-boundary';
    const body = fc.oneof(
      fields.map((f) => ({ type: 'application/json', data: JSON.stringify(f) })),
      fc.json({ maxDepth: 2 }).map((data) => ({ type: 'application/json', data })),
      fields.map((f) => ({ type: 'application/x-www-form-urlencoded', data: new URLSearchParams(Object.entries(f).map(([k, v]): [string, string] => [k, asText(v)])).toString() })),
      fields.map((f) => ({
        type: `multipart/form-data; boundary=${BOUNDARY}`,
        data: `${Object.entries(f)
          .map(([k, v]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${asText(v)}\r\n`)
          .join('')}--${BOUNDARY}--\r\n`,
      })),
      fc.tuple(fc.constantFrom('application/json', 'multipart/form-data', 'multipart/form-data; boundary=x', 'text/plain', 'application/json; charset=latin-9', ''), bytes(200)).map(([type, data]) => ({ type, data })),
    );

    /** The fuzzer's own collections and objects, where well-formed writes succeed. */
    const ownPath = fc.constantFrom(`/event/${home}/ticket`, `/event/${home}/ticket`, '/event', `/ticket/${ids.fuzzerTicket}`, `/event/${home}`);

    const fuzzRequest = (methods: string[], options: { body: boolean; hostile: number }): fc.Arbitrary<FuzzRequest> =>
      fc
        .record({
          method: fc.constantFrom(...methods),
          path: options.body ? fc.oneof({ weight: 3, arbitrary: ownPath }, { weight: 1, arbitrary: path }) : path,
          query,
          headers: headers(options.hostile),
          body: options.body ? fc.option(body, { nil: undefined, freq: 5 }) : fc.constant(undefined),
        })
        .map(({ method, path, query, headers, body }) => ({
          method,
          path: path + query,
          headers: body ? [...headers, ['Content-Type', body.type] as [string, string]] : headers,
          body: body ? Buffer.from(body.data, 'latin1') : undefined,
        }));

    return fuzzRequest;
  };

  // ---- oracles ----

  const check = (req: FuzzRequest, res: RawResponse) => {
    const shown = `${req.method} ${req.path} -> ${res.status} ${res.body.slice(0, 300)}`;
    expect(res.status >= 500 && res.status !== 503 && res.status !== 504, shown).toBe(false);
    expect(validator.response(req.method, req.path, res), shown).toEqual([]);
    expectNoInternals({ text: res.body } as Parameters<typeof expectNoInternals>[0]);
    expect(res.body, shown).not.toMatch(GRPC_INTERNALS);
    expect(res.body, shown).not.toContain(fuzzer.accessToken);
  };

  /** How often each status was answered: the fuzzer must reach the services, not only the gateway's refusals. */
  const statuses = new Map<number, number>();
  const send = async (req: FuzzRequest) => {
    const res = await rawRequest(stack.running.gatewayPort, req);
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    return res;
  };
  const run = (arbitrary: fc.Arbitrary<FuzzRequest>) =>
    fc.assert(
      fc.asyncProperty(arbitrary, async (req) => check(req, await send(req))),
      { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS },
    );

  it('header bytes: every byte 0-255 in Authorization, Company, Idempotency-Key and If-Match', async () => {
    await run(arbitraries()(['GET', 'DELETE', 'POST', 'PUT'], { body: false, hostile: 6 }));
  }, 60_000);

  it('bodies: JSON, URL-encoded, multipart and junk, with random field names and values', async () => {
    await run(arbitraries()(['POST', 'PUT', 'PATCH'], { body: true, hostile: 1 }));
  }, 60_000);

  it('paths and query strings', async () => {
    await run(arbitraries()(['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'DELETE'], { body: true, hostile: 1 }));
  }, 60_000);

  it("reached the services, and left another company's data intact and the fuzzer's own readable", async () => {
    const seen = [...statuses.keys()];
    expect(seen.some((status) => status >= 200 && status < 300), JSON.stringify(Object.fromEntries(statuses))).toBe(true);
    expect(seen, 'no request got as far as validation').toContain(422);
    expect(await readOwnerData()).toEqual(ownerBefore);
    for (const path of [`/event/${ids.fuzzerEvent}`, `/ticket/${ids.fuzzerTicket}`]) {
      const res = await rawRequest(stack.running.gatewayPort, { path, headers: [['Authorization', `Bearer ${fuzzer.accessToken}`]] });
      // A DELETE or a revoked session along the way are fine; a broken row is not.
      expect([200, 401, 404]).toContain(res.status);
      expect(validator.response('GET', path, res)).toEqual([]);
    }
  });
});
