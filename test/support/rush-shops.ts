/**
 * A shop in an on-sale rush, as the rush test (test/stock/rush-cliff.test.ts) and the rush
 * bench (test/bench/rush-bench.ts) both drive it: reserve, then confirm, over gRPC
 * (ReservationService, as a shop calls it) or REST (through the gateway). Every answer is
 * sorted here, once, by what the contract says it means (docs/stock-moves.md "Past the
 * cliff"): served, sold out, refused at once as busy (try again after the delay), or a
 * failure of any other kind, described. No vitest import: the bench uses it too.
 */
import { credentials, Metadata, status } from '@grpc/grpc-js';
import { ReservationServiceClient } from '../../lib/gen/ticketing/v1/reservation.js';
import { callUnary } from '../../lib/grpc/client.js';
import { isServiceError, readErrorDetails } from '../../lib/grpc/errors.js';
import { BUSY_CODES, TICKET_BUSY } from '../../lib/stock-conflicts.js';
import { bearer, request, type JsonResponse } from './http.js';

export type ReserveAnswer =
  | { outcome: 'reserved'; guid: string }
  | { outcome: 'sold_out' }
  /** Refused at once, nothing reserved; the shop may try again after `retryAfterSeconds`. */
  | { outcome: 'busy'; retryAfterSeconds: number }
  | { outcome: 'failed'; why: string };

export type ConfirmAnswer = { outcome: 'confirmed' } | { outcome: 'failed'; why: string };

export interface RushShop {
  name: string;
  reserve(ticketGuid: string, amount: number): Promise<ReserveAnswer>;
  confirm(reservationGuid: string): Promise<ConfirmAnswer>;
  close(): void;
}

/** Long enough that a call fails only when the service fails it, not because the load generator is slow. */
const DEADLINE_MS = 30_000;

const describeError = (err: unknown) => (isServiceError(err) ? `gRPC ${status[err.code]}: ${err.details}` : String(err));

/** A gRPC failure of a reservation, sorted: RESOURCE_EXHAUSTED is busy only with reason ticket_busy and a RetryInfo delay. */
function grpcReserveFailure(err: unknown): ReserveAnswer {
  if (!isServiceError(err)) return { outcome: 'failed', why: describeError(err) };
  const details = readErrorDetails(err);
  if (err.code === status.FAILED_PRECONDITION && details.reason === 'insufficient_stock') return { outcome: 'sold_out' };
  const retryAfterSeconds = details.retryAfterSeconds ?? 0;
  if (err.code === status.RESOURCE_EXHAUSTED && details.reason === TICKET_BUSY && retryAfterSeconds >= 1) return { outcome: 'busy', retryAfterSeconds };
  return { outcome: 'failed', why: `${describeError(err)} (reason ${details.reason ?? 'none'}, retry after ${details.retryAfterSeconds ?? 'none'})` };
}

export function grpcRushShop(address: string, token: string): RushShop {
  const client = new ReservationServiceClient(address, credentials.createInsecure());
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return {
    name: 'gRPC',
    async reserve(ticketGuid, amount) {
      try {
        const reservation = await callUnary(client.reserveTicket.bind(client), { ticket_id: ticketGuid, amount, ttl_seconds: undefined, request_id: '' }, metadata, DEADLINE_MS);
        return { outcome: 'reserved', guid: reservation.guid };
      } catch (err) {
        return grpcReserveFailure(err);
      }
    },
    async confirm(reservationGuid) {
      try {
        await callUnary(client.confirmReservation.bind(client), { guid: reservationGuid, barcodes: [] }, metadata, DEADLINE_MS);
        return { outcome: 'confirmed' };
      } catch (err) {
        return { outcome: 'failed', why: describeError(err) };
      }
    },
    close: () => client.close(),
  };
}

/** The Retry-After of a busy refusal over REST: whole seconds, at least 1; undefined when missing or malformed. */
function retryAfterOf(res: JsonResponse): number | undefined {
  const value = res.headers.get('retry-after') ?? '';
  return /^\d+$/.test(value) && Number(value) >= 1 ? Number(value) : undefined;
}

const isProblem = (res: JsonResponse, httpStatus: number) =>
  /^application\/problem\+json/.test(res.headers.get('content-type') ?? '') && res.body?.status === httpStatus && typeof res.body?.detail === 'string';

const describeResponse = (res: JsonResponse) => `HTTP ${res.status}: ${res.text.slice(0, 300)}`;

/** A REST answer to a reservation, sorted: 503 is busy only as a problem with a busy code (ticket_busy, server_busy) and a Retry-After (a dependency down has no code). */
function restReserveAnswer(res: JsonResponse): ReserveAnswer {
  if (res.status === 201) return { outcome: 'reserved', guid: res.body.guid as string };
  if (res.status === 409 && isProblem(res, 409) && res.body.code === 'insufficient_stock') return { outcome: 'sold_out' };
  const retryAfterSeconds = retryAfterOf(res);
  if (res.status === 503 && isProblem(res, 503) && BUSY_CODES.has(res.body.code as string) && retryAfterSeconds !== undefined) return { outcome: 'busy', retryAfterSeconds };
  return { outcome: 'failed', why: describeResponse(res) };
}

export function restRushShop(baseUrl: string, token: string): RushShop {
  const headers = bearer(token);
  return {
    name: 'REST',
    async reserve(ticketGuid, amount) {
      const res = await request(`${baseUrl}/ticket/${ticketGuid}/reservations`, { method: 'POST', headers, json: { amount } }).catch((err: unknown) => err);
      return res instanceof Error ? { outcome: 'failed', why: String(res) } : restReserveAnswer(res as JsonResponse);
    },
    async confirm(reservationGuid) {
      const res = await request(`${baseUrl}/reservation/${reservationGuid}/confirm`, { method: 'POST', headers }).catch((err: unknown) => err);
      if (res instanceof Error) return { outcome: 'failed', why: String(res) };
      const answered = res as JsonResponse;
      return answered.status === 200 ? { outcome: 'confirmed' } : { outcome: 'failed', why: describeResponse(answered) };
    },
    close: () => undefined,
  };
}
