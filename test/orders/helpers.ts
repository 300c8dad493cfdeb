/**
 * Helpers of the orders suites (PRODUCT.md 12): the gRPC client of OrderService and a stack
 * with a seller (test/support/stock.ts: tickets, the invariant, which counts order lines as
 * the reservations they are).
 */
import { credentials, type Metadata } from '@grpc/grpc-js';
import { OrderChannel, OrderServiceClient, type CancelOrderRequest, type ConfirmLine, type NewOrderLine, type Order } from '../../lib/gen/ticketing/v1/order.js';
import { grpcCall, meta, startStockSuiteWithClient, type StockSuite } from '../support/stock.js';
import { h, type Who } from '../support/api.js';
import { request, type JsonResponse } from '../support/http.js';
import type { TestStack } from '../support/stack.js';
import { suiteOfFile } from '../support/suite.js';

export function orderClient(stack: TestStack): OrderServiceClient {
  return new OrderServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
}

export interface Orders {
  create(event_id: string, lines: NewOrderLine[], options?: { ttl_seconds?: number; channel?: OrderChannel; request_id?: string }): Promise<Order>;
  get(guid: string): Promise<Order>;
  pending(guid: string, ttl_seconds?: number): Promise<Order>;
  /** `holders` may be left out (none). */
  confirm(guid: string, lines?: Array<Omit<ConfirmLine, 'holders'> & Partial<Pick<ConfirmLine, 'holders'>>>, expected_total?: string): Promise<Order>;
  release(guid: string): Promise<Order>;
  cancel(guid: string, options?: Partial<Omit<CancelOrderRequest, 'guid'>>): Promise<Order>;
}

/** The OrderService calls as `who`. */
export function ordersOf(client: OrderServiceClient, who: Who): Orders {
  const md = (): Metadata => meta(who.token);
  return {
    create: (event_id, lines, options = {}) => grpcCall(client.createOrder.bind(client), { event_id, lines, request_id: '', ...options }, md()),
    get: (guid) => grpcCall(client.getOrder.bind(client), { guid }, md()),
    pending: (guid, ttl_seconds) => grpcCall(client.markOrderPending.bind(client), { guid, ttl_seconds }, md()),
    confirm: (guid, lines = [], expected_total) => grpcCall(client.confirmOrder.bind(client), { guid, lines: lines.map((line) => ({ holders: [], ...line })), expected_total }, md()),
    release: (guid) => grpcCall(client.releaseOrder.bind(client), { guid }, md()),
    cancel: (guid, options = {}) => grpcCall(client.cancelOrder.bind(client), { guid, barcodes: [], ...options }, md()),
  };
}

export { OrderChannel };

export interface OrderSuite extends StockSuite {
  client: OrderServiceClient;
  /** OrderService as the suite's seller. */
  orders: Orders;
}

/** A stock suite (test/support/stock.ts) with an OrderService client; `stop` closes both. */
export async function startOrderSuite(): Promise<OrderSuite> {
  const suite = await startStockSuiteWithClient(orderClient);
  return { ...suite, orders: ordersOf(suite.client, suite.who) };
}

/** The order suite of one test file (suiteOfFile: read its fields inside a test). */
export function orderSuiteOfFile(): OrderSuite {
  return suiteOfFile(startOrderSuite);
}

// --- REST -----------------------------------------------------------------------------

/** The keys of the order object and of each line (PRODUCT.md 12 "Order object"), in order. */
export const ORDER_KEYS = ['guid', 'company_id', 'event_id', 'channel', 'state', 'expires_at', 'lines', 'created_at', 'updated_at', 'currency', 'coupon_code', 'totals', 'cancellations', 'refunded_total'];
export const LINE_KEYS = ['ticket_id', 'amount', 'barcodes', 'price'];

export function createOrderRest(who: Who, eventGuid: string, body: unknown, headers: Record<string, string> = {}): Promise<JsonResponse> {
  return request(`${who.stack.baseUrl}/event/${eventGuid}/orders`, { method: 'POST', headers: h(who, headers), json: body });
}

export function orderMoveRest(who: Who, orderGuid: string, move: 'pending' | 'confirm' | 'release' | 'cancel', body?: unknown): Promise<JsonResponse> {
  return request(`${who.stack.baseUrl}/order/${orderGuid}/${move}`, { method: 'POST', headers: h(who), ...(body ? { json: body } : {}) });
}

export function readOrderRest(who: Who, orderGuid: string): Promise<JsonResponse> {
  return request(`${who.stack.baseUrl}/order/${orderGuid}`, { headers: h(who) });
}
