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
import { credentials, Metadata } from '@grpc/grpc-js';
import { ReservationServiceClient, ReservationState } from '../lib/gen/ticketing/v1/reservation.js';
import { callUnary } from '../lib/grpc/client.js';
import { isServiceError } from '../lib/grpc/errors.js';
import { refusal } from './grpc-refusal.js';

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
