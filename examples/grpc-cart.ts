/**
 * A shop sells a cart over gRPC: one order of several tickets of an event (all lines or none),
 * confirmed, then read back. Run it with the variables of the README's curl walk and a second
 * ticket of the event (docs/orders.md makes CHILD):
 *
 *   TOKEN=$TOKEN EVENT=$EVENT TICKETS="$TICKET $CHILD" npx tsx examples/grpc-cart.ts
 *
 * TICKET_GRPC_ADDRESS: where the ticket service listens (default localhost:50051, as npm start).
 * It exits 1 after printing a refusal; a refused line names its ticket (ticket_id).
 */
import { randomUUID } from 'node:crypto';
import { credentials, Metadata } from '@grpc/grpc-js';
import { OrderServiceClient } from '../lib/gen/ticketing/v1/order.js';
import { ReservationState } from '../lib/gen/ticketing/v1/reservation.js';
import { callUnary } from '../lib/grpc/client.js';
import { isServiceError } from '../lib/grpc/errors.js';
import { refusal } from './grpc-refusal.js';

const { TOKEN, EVENT, TICKETS = '', TICKET_GRPC_ADDRESS = 'localhost:50051' } = process.env;
const tickets = TICKETS.split(/\s+/).filter(Boolean);
if (!TOKEN || !EVENT || tickets.length === 0) {
  console.error('Set TOKEN, EVENT and TICKETS, the cart\'s ticket guids separated by spaces (see docs/orders.md).');
  process.exit(2);
}

const shop = new OrderServiceClient(TICKET_GRPC_ADDRESS, credentials.createInsecure());
const metadata = new Metadata();
metadata.set('authorization', `Bearer ${TOKEN}`);

try {
  // One unit of each ticket, held together for 8 minutes; request_id is the Idempotency-Key, as for a reservation.
  const lines = tickets.map((ticket_id) => ({ ticket_id, amount: 1 }));
  const order = await callUnary(shop.createOrder.bind(shop), { event_id: EVENT, lines, ttl_seconds: 480, request_id: randomUUID() }, metadata, 3000);
  console.log('reserved', order.lines.length, 'lines until', order.expires_at?.toISOString(), 'total', order.totals?.total, order.currency);
  // Generated barcodes need no lines here; a predefined ticket's line sends its own: { ticket_id, barcodes }.
  // expected_total: the total the buyer pays; a different one is refused (price_changed) and nothing is confirmed.
  await callUnary(shop.confirmOrder.bind(shop), { guid: order.guid, lines: [], expected_total: order.totals?.total }, metadata, 3000);
  const sold = await callUnary(shop.getOrder.bind(shop), { guid: order.guid }, metadata, 2000);
  console.log(ReservationState[sold.state], 'order', sold.guid);
  for (const line of sold.lines) console.log(' ', line.ticket_id, line.barcodes.map((barcode) => barcode.code).join(' '));
} catch (err) {
  if (!isServiceError(err)) throw err;
  console.error(refusal(err));
  process.exitCode = 1;
} finally {
  shop.close();
}
