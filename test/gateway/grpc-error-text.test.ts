import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { problemFromGrpc, problemJson } from '../../gateway/problem.js';
import { fromServiceError, RpcError, toStatusObject } from '../../lib/grpc/errors.js';
import { ticketBusy } from '../../lib/stock-conflicts.js';

/** An error as the gateway's grpc-js client raises it by itself: no service wrote it. */
function localError(code: status, details: string): ServiceError {
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details, metadata: new Metadata() });
}

/** An error as a service sent it (lib/grpc/server.ts). */
function serviceError(err: RpcError): ServiceError {
  const sent = toStatusObject(err);
  return Object.assign(new Error(err.message), { code: err.code, details: err.message, metadata: sent.metadata! });
}

describe('grpc-js messages never reach a client (issue 7, finding 7)', () => {
  it.each([
    [status.INTERNAL, 'Received RST_STREAM with code 2 (Internal server error)'],
    [status.UNIMPLEMENTED, 'The server does not implement the method /x.Y/Z'],
    [status.CANCELLED, 'Call cancelled'],
    [status.UNKNOWN, 'Unknown error'],
  ])('a locally raised %s is a 500 in our words', (code, text) => {
    const problem = problemFromGrpc(localError(code, text));
    expect(problem).toMatchObject({ status: 500, detail: 'Internal error.' });
    expect(problem.retryAfterSeconds).toBeUndefined();
  });

  // Issue 18 item 1: an answer over the gRPC message limit was a 500 for good (GET of a reservation of 240,000 barcodes).
  it.each([
    [status.RESOURCE_EXHAUSTED, 'Received message larger than max (5000000 vs 4194304)'],
    [status.RESOURCE_EXHAUSTED, 'Bandwidth exhausted or memory limit exceeded'],
  ])('a locally raised %s (a message too large, flow control) is a 502 in our words, never a 500', (code, text) => {
    const problem = problemFromGrpc(localError(code, text));
    expect(problem).toMatchObject({ status: 502, detail: 'The answer was too large to pass through the gateway; read it page by page.' });
    expect(problem.retryAfterSeconds).toBeUndefined();
  });

  it('a locally raised UNAVAILABLE or DEADLINE_EXCEEDED is 503/504, in our words', () => {
    expect(problemFromGrpc(localError(status.UNAVAILABLE, 'No connection established. Last error: connect ECONNREFUSED 10.0.0.1:50051'))).toMatchObject({
      status: 503,
      detail: 'A backend service is unavailable; try again shortly.',
      retryAfterSeconds: 1,
    });
    expect(problemFromGrpc(localError(status.DEADLINE_EXCEEDED, 'Deadline exceeded after 5.001s,LB pick: 0.001s'))).toMatchObject({ status: 504 });
  });

  it("a service's own message passes, RESOURCE_EXHAUSTED still a 429 and UNAUTHENTICATED without details too", () => {
    expect(problemFromGrpc(serviceError(new RpcError(status.RESOURCE_EXHAUSTED, 'Too many token requests.', { retryAfterSeconds: 30 })))).toMatchObject({
      status: 429,
      detail: 'Too many token requests.',
      retryAfterSeconds: 30,
    });
    expect(problemFromGrpc(serviceError(new RpcError(status.UNAUTHENTICATED, 'The access token is invalid or expired.')))).toMatchObject({
      status: 401,
      detail: 'The access token is invalid or expired.',
    });
    expect(problemFromGrpc(serviceError(new RpcError(status.NOT_FOUND, 'Ticket not found.')))).toMatchObject({ status: 404, detail: 'Ticket not found.' });
  });

  it('a ticket too busy (RESOURCE_EXHAUSTED, reason ticket_busy) is a 503 with Retry-After and code ticket_busy; a dependency down is a 503 without a code', () => {
    const busy = problemFromGrpc(serviceError(ticketBusy(3)));
    expect(busy).toMatchObject({ status: 503, retryAfterSeconds: 3, members: { code: 'ticket_busy' } });
    expect(JSON.parse(problemJson(busy))).toMatchObject({ status: 503, code: 'ticket_busy' });
    const down = problemFromGrpc(localError(status.UNAVAILABLE, 'No connection established'));
    expect(down).toMatchObject({ status: 503, retryAfterSeconds: 1 });
    expect(JSON.parse(problemJson(down))).not.toHaveProperty('code');
  });

  it('a service passing on a dependency error passes on only what the dependency wrote', () => {
    expect(fromServiceError(localError(status.RESOURCE_EXHAUSTED, 'Bandwidth exhausted or memory limit exceeded'))).toMatchObject({
      code: status.INTERNAL,
      message: 'Internal error.',
    });
    const passed = fromServiceError(serviceError(new RpcError(status.UNAUTHENTICATED, 'The access token has expired.', { reason: 'invalid_token' })));
    expect(passed).toMatchObject({ code: status.UNAUTHENTICATED, message: 'The access token has expired.', details: { reason: 'invalid_token' } });
  });
});
