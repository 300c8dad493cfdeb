import { makeGenericClientConstructor, type Client, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { AuthServiceClient } from '../lib/gen/auth/v1/auth.js';
import { CouponServiceClient } from '../lib/gen/ticketing/v1/coupon.js';
import { EventServiceClient } from '../lib/gen/ticketing/v1/event.js';
import { OrderServiceClient } from '../lib/gen/ticketing/v1/order.js';
import { ReservationServiceClient } from '../lib/gen/ticketing/v1/reservation.js';
import { TicketServiceClient } from '../lib/gen/ticketing/v1/ticket.js';
import { WebhookServiceClient } from '../lib/gen/ticketing/v1/webhook.js';
import { CLIENT_OPTIONS, insecure } from '../lib/grpc/client.js';

const HealthClient = makeGenericClientConstructor(healthService, 'grpc.health.v1.Health');

/** One long-lived channel per backend service. */
export interface BackendClients {
  auth: AuthServiceClient;
  tickets: TicketServiceClient;
  events: EventServiceClient;
  reservations: ReservationServiceClient;
  orders: OrderServiceClient;
  webhooks: WebhookServiceClient;
  coupons: CouponServiceClient;
  authHealth: Client;
  ticketHealth: Client;
  close(): void;
}

export function createBackendClients(authAddress: string, ticketAddress: string): BackendClients {
  const auth = new AuthServiceClient(authAddress, insecure(), CLIENT_OPTIONS);
  const tickets = new TicketServiceClient(ticketAddress, insecure(), CLIENT_OPTIONS);
  const events = new EventServiceClient(ticketAddress, insecure(), CLIENT_OPTIONS);
  const reservations = new ReservationServiceClient(ticketAddress, insecure(), CLIENT_OPTIONS);
  const orders = new OrderServiceClient(ticketAddress, insecure(), CLIENT_OPTIONS);
  const webhooks = new WebhookServiceClient(ticketAddress, insecure(), CLIENT_OPTIONS);
  const coupons = new CouponServiceClient(ticketAddress, insecure(), CLIENT_OPTIONS);
  const authHealth = new HealthClient(authAddress, insecure(), CLIENT_OPTIONS);
  const ticketHealth = new HealthClient(ticketAddress, insecure(), CLIENT_OPTIONS);
  return {
    auth,
    tickets,
    events,
    reservations,
    orders,
    webhooks,
    coupons,
    authHealth,
    ticketHealth,
    close() {
      for (const client of [auth, tickets, events, reservations, orders, webhooks, coupons, authHealth, ticketHealth]) client.close();
    },
  };
}

/** True when the service answers SERVING to grpc.health.v1.Health/Check within the deadline. */
export function isServing(client: Client, deadlineMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    (client as unknown as Record<string, (...args: unknown[]) => void>)
      .check!({ service: '' }, { deadline: Date.now() + deadlineMs }, (err: ServiceError | null, response: { status: string | number }) =>
        resolve(!err && (response.status === 'SERVING' || response.status === 1)),
      );
  });
}
