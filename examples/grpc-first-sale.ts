/**
 * A shop sells over gRPC: reserve two tickets, confirm the sale, scan one barcode at the door.
 * Run it with the variables of the README's curl walk (a token, an event, a ticket with stock):
 *
 *   TOKEN=$TOKEN EVENT=$EVENT TICKET=$TICKET npx tsx examples/grpc-first-sale.ts
 *
 * TICKET_GRPC_ADDRESS: where the ticket service listens (default localhost:50051, as npm start).
 * It exits 1 after printing a refusal, with what a shop needs to decide what to do next.
 */
import { randomUUID } from 'node:crypto';
import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { ReservationServiceClient, ReservationState } from '../lib/gen/ticketing/v1/reservation.js';
import { callUnary } from '../lib/grpc/client.js';
import { isServiceError, readErrorDetails } from '../lib/grpc/errors.js';

const { TOKEN, EVENT, TICKET, TICKET_GRPC_ADDRESS = 'localhost:50051' } = process.env;
if (!TOKEN || !EVENT || !TICKET) {
  console.error('Set TOKEN, EVENT and TICKET (see the README\'s first sale with curl).');
  process.exit(2);
}

const shop = new ReservationServiceClient(TICKET_GRPC_ADDRESS, credentials.createInsecure());
const metadata = new Metadata();
metadata.set('authorization', `Bearer ${TOKEN}`);

try {
  // request_id is the Idempotency-Key: a retry of this call with the same one takes no stock twice.
  const reservation = await callUnary(shop.reserveTicket.bind(shop), { ticket_id: TICKET, amount: 2, ttl_seconds: 480, request_id: randomUUID() }, metadata, 3000);
  console.log('reserved', reservation.amount, 'until', reservation.expires_at?.toISOString());
  const sold = await callUnary(shop.confirmReservation.bind(shop), { guid: reservation.guid, barcodes: [] }, metadata, 3000);
  console.log(ReservationState[sold.state], sold.barcodes);
  const scan = await callUnary(shop.scanBarcode.bind(shop), { event_id: EVENT, barcode: sold.barcodes[0]! }, metadata, 2000);
  console.log('scanned', scan.barcode, 'at', scan.scanned_at?.toISOString());
} catch (err) {
  if (!isServiceError(err)) throw err;
  console.error(refusal(err));
  process.exitCode = 1;
} finally {
  shop.close();
}

/** What went wrong, in words a shop can act on, with the standard google.rpc details of the error. */
function refusal(err: ServiceError): string {
  const details = readErrorDetails(err);
  const what = `${status[err.code]}: ${details.message ?? err.details}`;
  switch (err.code) {
    case status.INVALID_ARGUMENT: // a bad request: fix the fields named (google.rpc.BadRequest)
      return [what, ...(details.fieldViolations ?? []).map((v) => `  ${v.field}: ${v.description}`)].join('\n');
    case status.NOT_FOUND: // the ticket, reservation or barcode does not exist for this token (google.rpc.ResourceInfo)
      return `${what} (${details.resource?.type ?? 'resource'} ${details.resource?.name ?? ''})`;
    case status.FAILED_PRECONDITION: // insufficient_stock, not_on_sale, invalid_transition, reservation_expired
    case status.ALREADY_EXISTS: // barcode_taken, already_scanned (with the first scan's time)
      return `${what} (reason ${details.reason}${details.reasonMetadata && Object.keys(details.reasonMetadata).length ? ` ${JSON.stringify(details.reasonMetadata)}` : ''})`;
    case status.UNAUTHENTICATED: // expired or revoked token: get a new one (refresh_token grant)
      return `${what} (reason ${details.reason}): get a new token`;
    case status.UNAVAILABLE: // a dependency is down: retry later with the same request_id
    case status.DEADLINE_EXCEEDED:
    case status.RESOURCE_EXHAUSTED:
      return `${what}: retry${details.retryAfterSeconds ? ` in ${details.retryAfterSeconds} s` : ' later'} with the same request_id`;
    default:
      return what;
  }
}
