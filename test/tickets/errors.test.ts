/**
 * Error answers: 400 malformed JSON, 413 over 1 MiB, 415 other content types, the RFC 9457
 * problem shape, and no 5xx for any client input (a fuzz of odd bodies, values, paths and
 * query strings).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../support/stack.js';
import { passwordToken, type Account } from '../support/http.js';
import { createTicket, expectNoInternals, expectProblem, h, pool, request, startSuite, type JsonResponse, type Who } from './helpers.js';

let stack: TestStack;
let account: Account;
let who: Who;
let eventGuid: string;
let ticketGuid: string;

beforeAll(async () => {
  ({ stack, account, who, eventGuid } = await startSuite({ event: { name: 'Errors event' } }));
  ticketGuid = (await createTicket(who, eventGuid)).guid;
});

afterAll(() => stack?.stop());

type Target = { label: string; method: string; path: () => string };
const TARGETS: Target[] = [
  { label: 'POST /event/:guid/ticket', method: 'POST', path: () => `/event/${eventGuid}/ticket` },
  { label: 'PUT /ticket/:guid', method: 'PUT', path: () => `/ticket/${ticketGuid}` },
  { label: 'POST /event', method: 'POST', path: () => '/event' },
  { label: 'PUT /event/:guid', method: 'PUT', path: () => `/event/${eventGuid}` },
];

function raw(target: Target, body: RequestInit['body'], contentType?: string): Promise<JsonResponse> {
  return request(`${stack.baseUrl}${target.path()}`, {
    method: target.method,
    headers: h(who, contentType ? { 'content-type': contentType } : {}),
    body,
  });
}

/** A client-input answer: never 5xx, and every error is a problem. */
function expectClientAnswer(res: JsonResponse, what: string): void {
  expect(res.status, `${what} -> ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status >= 400) {
    expect(res.headers.get('content-type') ?? '', what).toMatch(/^application\/problem\+json/);
    expect(res.body.status, what).toBe(res.status);
    expectNoInternals(res);
  }
}

describe('syntax, size and media type', () => {
  for (const target of TARGETS) {
    it(`${target.label}: malformed JSON is 400`, async () => {
      for (const body of ['{"name":', "{'name':'x'}", '{"name":"x",}', '{name:"x"}', '{"name":"x"} trailing']) {
        expectProblem(await raw(target, body, 'application/json'), 400);
      }
    });

    it(`${target.label}: body over 1 MiB is 413`, async () => {
      const big = 'x'.repeat(1024 * 1024 + 10);
      expectProblem(await raw(target, JSON.stringify({ name: 'Big', vat_percentage: 21, description: big }), 'application/json'), 413);
      expectProblem(await raw(target, new URLSearchParams({ name: 'Big', vat_percentage: '21', description: big })), 413);
      const form = new FormData();
      form.set('name', 'Big');
      form.set('description', big);
      expectProblem(await raw(target, form), 413);
    });

    it(`${target.label}: text/plain and other media types are 415`, async () => {
      expectProblem(await raw(target, 'name=x&vat_percentage=21', 'text/plain'), 415);
      expectProblem(await raw(target, '<ticket><name>x</name></ticket>', 'application/xml'), 415);
      expectProblem(await raw(target, JSON.stringify({ name: 'x' }), 'text/json-ish'), 415);
    });
  }

  it('a body just under 1 MiB is not refused for its size', async () => {
    const json = JSON.stringify({ description: 'y'.repeat(9000) });
    const res = await raw(TARGETS[1]!, json, 'application/json');
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    const nearLimit = JSON.stringify({ name: 'x', vat_percentage: 21, description: 'z'.repeat(1024 * 1024 - 200) });
    const near = await raw(TARGETS[0]!, nearLimit, 'application/json');
    expect(near.status, near.text.slice(0, 300)).not.toBe(413);
    expectProblem(near, 422); // description is over 10000 characters
  });

  it('application/json with a charset parameter is JSON', async () => {
    const res = await raw(TARGETS[0]!, JSON.stringify({ name: 'Charset', vat_percentage: 21 }), 'application/json; charset=utf-8');
    expect(res.status, res.text).toBe(201);
  });
});

describe('problem shape', () => {
  it('404, 401 and 422 are problems with type, title, status and detail', async () => {
    expectProblem(await request(`${stack.baseUrl}/ticket/00000000-0000-4000-8000-000000000000`, { headers: h(who) }), 404);
    const unauth = await request(`${stack.baseUrl}/ticket/${ticketGuid}`);
    expectProblem(unauth, 401);
    expect(unauth.headers.get('www-authenticate') ?? '').toMatch(/^Bearer/);
    const invalid = await request(`${stack.baseUrl}/ticket/${ticketGuid}`, { method: 'PUT', headers: h(who), json: { increment: 0 } });
    expectProblem(invalid, 422);
    expect(invalid.body.errors).toEqual([{ field: 'increment', message: expect.any(String) }]);
  });

  it('an invalid token is 401 with WWW-Authenticate', async () => {
    for (const authorization of ['Bearer nonsense', 'Bearer ', 'Basic dXNlcjpwYXNz', `Bearer ${who.token}x`, who.token]) {
      const res = await request(`${stack.baseUrl}/ticket/${ticketGuid}`, { headers: { authorization } });
      expectProblem(res, 401);
      expect(res.headers.get('www-authenticate') ?? '', authorization.slice(0, 20)).toMatch(/^Bearer/);
    }
  });
});

describe('tokens that are no longer valid', () => {
  it('a revoked access token is 401 with WWW-Authenticate on ticket and event routes', async () => {
    const fresh = (await passwordToken(stack, account.email, account.password)).access_token as string;
    expect((await request(`${stack.baseUrl}/ticket/${ticketGuid}`, { headers: { authorization: `Bearer ${fresh}` } })).status).toBe(200);
    const revoke = await request(`${stack.authUrl}/tokens/revoke`, { method: 'POST', body: new URLSearchParams({ token: fresh }) });
    expect(revoke.status).toBe(200);
    for (const path of [`/ticket/${ticketGuid}`, `/event/${eventGuid}`, `/event/${eventGuid}/ticket`, '/ticket', '/event']) {
      const res = await request(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${fresh}` } });
      expectProblem(res, 401);
      expect(res.headers.get('www-authenticate') ?? '').toMatch(/^Bearer/);
      expect(res.text).not.toContain(ticketGuid);
    }
    const put = await request(`${stack.baseUrl}/ticket/${ticketGuid}`, { method: 'PUT', headers: { authorization: `Bearer ${fresh}` }, json: { name: 'revoked write' } });
    expectProblem(put, 401);
    expect((await request(`${stack.baseUrl}/ticket/${ticketGuid}`, { headers: h(who) })).body.name).not.toBe('revoked write');
  });
});

describe('no 5xx for any client input', () => {
  it('unsupported methods and paths are 4xx problems', async () => {
    const probes: Array<[string, string]> = [
      ['PATCH', `/ticket/${ticketGuid}`],
      ['POST', `/ticket/${ticketGuid}`],
      ['PUT', '/ticket'],
      ['DELETE', '/ticket'],
      ['PATCH', `/event/${eventGuid}`],
      ['POST', `/event/${eventGuid}`],
      ['PUT', '/event'],
      ['DELETE', '/event'],
      ['PUT', `/event/${eventGuid}/ticket`],
      ['DELETE', `/event/${eventGuid}/ticket`],
      ['GET', `/event/${eventGuid}/ticket/${ticketGuid}`],
      ['GET', '/tickets'],
    ];
    for (const [method, path] of probes) {
      const res = await request(`${stack.baseUrl}${path}`, { method, headers: h(who), ...(method === 'GET' ? {} : { json: { name: 'x', vat_percentage: 21 } }) });
      expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expectClientAnswer(res, `${method} ${path}`);
    }
  });

  const ODD_BODIES: string[] = [
    '[]',
    '[{"name":"x","vat_percentage":21}]',
    '"just a string"',
    '42',
    'null',
    'true',
    '{}',
    '{"name":null,"vat_percentage":null}',
    '{"name":"x","vat_percentage":1e400}',
    '{"name":"x","vat_percentage":-1e400}',
    '{"name":"x","vat_percentage":1e-400}',
    '{"name":"x","vat_percentage":"NaN"}',
    '{"name":"x","vat_percentage":"Infinity"}',
    '{"name":"x","vat_percentage":"0x10"}',
    '{"name":"x","vat_percentage":" 21 "}',
    '{"name":"x","vat_percentage":"1e1"}',
    '{"name":"x","vat_percentage":-0}',
    '{"name":"x","vat_percentage":21,"available_stock":99999999999999999999999}',
    '{"name":"x","vat_percentage":21,"available_stock":"9007199254740993"}',
    '{"name":"x","vat_percentage":21,"min_price":"1e10"}',
    '{"name":"x","vat_percentage":21,"min_price":123456789012345678901234567890.12}',
    '{"name":"x","vat_percentage":21,"available_from":"0000-00-00T00:00:00Z"}',
    '{"name":"x","vat_percentage":21,"available_from":"+275760-09-13T00:00:00Z"}',
    '{"name":"x","vat_percentage":21,"available_from":"9999-12-31T23:59:59+14:00"}',
    '{"name":"x","vat_percentage":21,"available_from":"2030-02-30T10:00:00Z"}',
    '{"name":"x","vat_percentage":21,"available_from":"2030-01-01T25:61:61+99:99"}',
    '{"name":"x","vat_percentage":21,"available_from":{"$date":1}}',
    '{"name":"x","vat_percentage":21,"available_from":[]}',
    '{"name":"\\u0000nul\\u0000","vat_percentage":21}',
    '{"name":"\\ud800","vat_percentage":21}',
    '{"name":"x","vat_percentage":21,"description":"\\udfff lone surrogate"}',
    '{"name":"x\' OR 1=1; DROP TABLE tickets; --","vat_percentage":21}',
    '{"name":"x","vat_percentage":21,"status_overrule":["auto"]}',
    '{"name":"x","vat_percentage":21,"barcode_type":{"toString":"none"}}',
    '{"name":"x","vat_percentage":21,"__proto__":{"isAdmin":true}}',
    '{"name":"x","vat_percentage":21,"constructor":{"prototype":{"x":1}}}',
    '{"name":"x","vat_percentage":21,"hasOwnProperty":1}',
    '{"name":"x","vat_percentage":21,"guid":null,"company_id":"*","event_id":123}',
    '{"name":"x","vat_percentage":21,"sold_count":"abc","created_at":"yesterday","deleted_at":42}',
    '{"name":"x","vat_percentage":21,"start":"2030-01-01T00:00:00Z","end":"2029-01-01T00:00:00Z"}',
    '{"name":"x","vat_percentage":21,"start":"soon","end":[]}',
    '{"name":' + '['.repeat(2000) + ']'.repeat(2000) + ',"vat_percentage":21}',
    '{"name":"x","vat_percentage":21,"increment":true,"seated":0.5,"swappable":2}',
    '{"name":"x","vat_percentage":21,"class":12,"seats_category_key":false,"description":[1,2]}',
    '{"name":"' + 'é'.repeat(300) + '","vat_percentage":21}',
    '{"name":"x","name":"duplicate","vat_percentage":21}',
    '\ufeff{"name":"bom","vat_percentage":21}',
  ];

  it('odd JSON bodies on every write route', async () => {
    // every body on the ticket routes; the event routes get a sample
    const tasks = TARGETS.flatMap((target) =>
      ODD_BODIES.filter((_, i) => target.label.includes('ticket') || i % 3 === 0).map(
        (body) => async () => expectClientAnswer(await raw(target, body, 'application/json'), `${target.label} ${body.slice(0, 80)}`),
      ),
    );
    await pool(tasks);
  });

  it('odd form bodies', async () => {
    const forms: Array<Record<string, string>> = [
      { name: 'x', vat_percentage: '21', available_stock: 'many' },
      { name: 'x', vat_percentage: '21%' },
      { name: 'x', vat_percentage: '21', swappable: 'TRUE ' },
      { name: 'x', vat_percentage: '21', available_from: '1700000000' },
      { 'name[]': 'x', vat_percentage: '21' },
      { 'name[a]': 'x', 'vat_percentage[b][c]': '21' },
      { name: 'x', vat_percentage: '21', min_price: '1,50' },
    ];
    const tasks: Array<() => Promise<void>> = [];
    for (const target of TARGETS) {
      for (const fields of forms) {
        tasks.push(async () => expectClientAnswer(await raw(target, new URLSearchParams(fields)), `${target.label} urlencoded ${JSON.stringify(fields)}`));
        tasks.push(async () => {
          const form = new FormData();
          for (const [k, v] of Object.entries(fields)) form.append(k, v);
          form.append('name', 'repeated');
          expectClientAnswer(await raw(target, form), `${target.label} multipart ${JSON.stringify(fields)}`);
        });
      }
      tasks.push(async () => {
        const withFile = new FormData();
        withFile.set('name', new Blob(['file content'], { type: 'text/plain' }), 'name.txt');
        withFile.set('vat_percentage', '21');
        expectClientAnswer(await raw(target, withFile), `${target.label} multipart with a file`);
      });
      tasks.push(async () => expectClientAnswer(await raw(target, '--nope\r\nbroken', 'multipart/form-data; boundary=nope'), `${target.label} broken multipart`));
      tasks.push(async () => expectClientAnswer(await raw(target, 'a=%E0%A4%A&b', 'application/x-www-form-urlencoded'), `${target.label} bad percent-encoding`));
    }
    await pool(tasks);
  });

  it('odd path GUIDs are 404, never 5xx', async () => {
    const odd = ['not-a-guid', '%00', "'%20OR%201=1", '..%2F..%2Fetc%2Fpasswd', '00000000-0000-0000-0000-000000000000', 'ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ', `${ticketGuid}x`, ticketGuid.toUpperCase().replace(/-/g, ''), 'a'.repeat(2000), '%F0%9F%8E%AB'];
    const tasks: Array<() => Promise<void>> = [];
    for (const id of odd) {
      for (const [method, path] of [
        ['GET', `/ticket/${id}`],
        ['PUT', `/ticket/${id}`],
        ['DELETE', `/ticket/${id}`],
        ['GET', `/event/${id}`],
        ['PUT', `/event/${id}`],
        ['DELETE', `/event/${id}`],
        ['GET', `/event/${id}/ticket`],
        ['POST', `/event/${id}/ticket`],
      ] as const) {
        tasks.push(async () => {
          const res = await request(`${stack.baseUrl}${path}`, {
            method,
            headers: h(who),
            ...(method === 'PUT' || method === 'POST' ? { json: { name: 'x', vat_percentage: 21 } } : {}),
          });
          expectClientAnswer(res, `${method} ${path.slice(0, 80)}`);
          if (id !== ticketGuid.toUpperCase().replace(/-/g, '')) expect(res.status, `${method} ${path.slice(0, 80)}`).toBe(404);
        });
      }
    }
    await pool(tasks);
  });

  it('odd query strings on the lists', async () => {
    const queries = ['limit=-1', 'limit=1e3', 'limit=0x10', 'limit=99999999999999999999', 'limit=', 'limit=1&limit=2', 'cursor=', 'cursor=%00', 'limit=2&cursor=' + 'A'.repeat(5000), 'limit[]=1', 'cursor[a]=b', 'limit=NaN'];
    await pool(
      [`/event/${eventGuid}/ticket`, '/event', '/ticket'].flatMap((path) =>
        queries.map((query) => async () => expectClientAnswer(await request(`${stack.baseUrl}${path}?${query}`, { headers: h(who) }), `GET ${path}?${query.slice(0, 40)}`)),
      ),
    );
  });

  it('odd headers', async () => {
    const headerSets: Array<Record<string, string>> = [
      { company: '' },
      { company: ',' },
      { company: '*,*' },
      { company: 'not-a-guid' },
      { company: `${'a'.repeat(4000)}` },
      { 'if-match': 'garbage' },
      { 'if-match': '' },
      { 'idempotency-key': 'x'.repeat(300) },
      { 'content-type': 'application/json; charset=latin-1' },
    ];
    for (const headers of headerSets) {
      expectClientAnswer(
        await request(`${stack.baseUrl}/ticket/${ticketGuid}`, { method: 'PUT', headers: h(who, { 'content-type': 'application/json', ...headers }), body: JSON.stringify({ description: 'h' }) }),
        `PUT with ${JSON.stringify(headers).slice(0, 60)}`,
      );
      expectClientAnswer(await request(`${stack.baseUrl}/event/${eventGuid}/ticket`, { headers: h(who, headers) }), `GET list with ${JSON.stringify(headers).slice(0, 60)}`);
    }
  });
});
