import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, request, signUpAndLogin, type Account } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/stack.js';

const MiB = 1024 * 1024;
const BOUNDARY = 'fuzzboundary42';

/** One multipart field of `size` bytes. */
function multipartField(name: string, size: number): Buffer {
  return Buffer.concat([Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`), Buffer.alloc(size, 'a'), Buffer.from('\r\n')]);
}

interface Streamed {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Whether every chunk had been written before the answer came. */
  sentAll: boolean;
}

/**
 * Sends `chunks` as a chunked body, one at a time, and stops sending as soon as an answer
 * arrives: an answer that waits for the whole body only comes after the last chunk.
 */
function streamBody(port: number, path: string, headers: Record<string, string>, chunks: Iterable<Buffer>): Promise<Streamed> {
  return new Promise((resolve, reject) => {
    let answered = false;
    let sentAll = false;
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers: { ...headers, 'transfer-encoding': 'chunked' } });
    req.on('response', (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (text: string) => (body += text));
      res.on('end', () => {
        resolve({ status: res.statusCode!, headers: res.headers, body, sentAll });
        req.destroy();
      });
    });
    // The server may close the connection while chunks are still in flight.
    req.on('error', (err) => (answered ? undefined : reject(err)));
    void (async () => {
      for (const chunk of chunks) {
        if (answered) return;
        await new Promise<void>((done) => req.write(chunk, () => done()));
      }
      if (answered) return;
      sentAll = true;
      req.end();
    })();
  });
}

function* multipartFields(count: number, size: number): Generator<Buffer> {
  for (let i = 0; i < count; i++) yield multipartField(`f${i}`, size);
  yield Buffer.from(`--${BOUNDARY}--\r\n`);
}

function* repeated(chunk: Buffer, times: number): Generator<Buffer> {
  for (let i = 0; i < times; i++) yield chunk;
}

/** BODY_LIMIT_BYTES holds for the whole body, whatever its encoding, chunked or not (issue 7, finding 5). */
describe('the body limit', () => {
  let stack: TestStack;
  let account: Account;
  let port: number;
  let ticketsPath: string;

  beforeAll(async () => {
    stack = await startTestStack();
    account = await signUpAndLogin(stack);
    port = stack.running.gatewayPort;
    const event = await request(`${stack.baseUrl}/event`, { method: 'POST', headers: bearer(account.accessToken), json: { name: 'Limits' } });
    ticketsPath = `/event/${event.body.guid}/ticket`;
  });
  afterAll(async () => stack?.stop());

  const multipart = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
  const expect413 = (res: Streamed) => {
    expect(res.status, res.body).toBe(413);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(res.body).status).toBe(413);
  };

  it('counts every multipart field: three fields under the limit each, over it together, are 413', async () => {
    const res = await streamBody(port, ticketsPath, { ...bearer(account.accessToken), ...multipart }, multipartFields(3, 600 * 1024));
    expect413(res);
  });

  it('answers 413 as soon as the limit is passed and reads no further (chunked multipart, JSON, URL-encoded)', async () => {
    const auth = bearer(account.accessToken);
    const bodies: Array<[Record<string, string>, Iterable<Buffer>]> = [
      [multipart, multipartFields(16, MiB)],
      [{ 'content-type': 'application/json' }, [Buffer.from('{"name":"'), ...repeated(Buffer.alloc(MiB, 'a'), 15), Buffer.from('"}')]],
      [{ 'content-type': 'application/x-www-form-urlencoded' }, [Buffer.from('name='), ...repeated(Buffer.alloc(MiB, 'a'), 16)]],
    ];
    for (const [headers, chunks] of bodies) {
      const res = await streamBody(port, ticketsPath, { ...auth, ...headers }, chunks);
      expect413(res);
      expect(res.sentAll, headers['content-type']).toBe(false);
    }
  });

  it('a request without a bearer token is answered 401 before its body is read', async () => {
    for (const authorization of [undefined, 'Basic dXNlcjpwYXNz', 'Bearer', 'Token abc']) {
      const headers: Record<string, string> = { ...multipart, ...(authorization ? { authorization } : {}) };
      const res = await streamBody(port, ticketsPath, headers, multipartFields(16, MiB));
      expect(res.status, `${authorization}: ${res.body}`).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="ticketing"');
      expect(res.sentAll).toBe(false);
    }
  });

  it('a well-formed but unknown token costs at most the capped read: 413', async () => {
    const res = await streamBody(port, ticketsPath, { authorization: 'Bearer not-a-real-token', ...multipart }, multipartFields(16, MiB));
    expect413(res);
    expect(res.sentAll).toBe(false);
  });

  it('the token endpoints keep their RFC 6749 form for a body over the limit', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const res = await streamBody(port, '/auth/tokens', form, [Buffer.from('grant_type=password&password='), ...repeated(Buffer.alloc(MiB, 'a'), 16)]);
    expect(res.status).toBe(413);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(res.body)).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    expect(res.sentAll).toBe(false);
  });

  it('a body within the limit still works, chunked multipart included', async () => {
    const fields = [
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="name"\r\n\r\nWithin\r\n`),
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="vat_percentage"\r\n\r\n9\r\n`),
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="description"\r\n\r\n${'d'.repeat(1000)}\r\n--${BOUNDARY}--\r\n`),
    ];
    const res = await streamBody(port, ticketsPath, { ...bearer(account.accessToken), ...multipart }, fields);
    expect(res.status, res.body).toBe(201);
    expect(JSON.parse(res.body).name).toBe('Within');
  });
});
