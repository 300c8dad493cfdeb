/**
 * The gRPC contract that the field tables and issue 8 give: enums instead of free strings,
 * google.rpc.ResourceInfo on NOT_FOUND, the resource named once by the request (the message's
 * guid is output only and may only repeat it), and If-Match passed through as the etag and
 * parsed by the service.
 */
import { credentials, status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Event, EventServiceClient } from '../../lib/gen/ticketing/v1/event.js';
import { BarcodeType, Ticket, TicketServiceClient, TicketStatus, TicketStatusOverrule } from '../../lib/gen/ticketing/v1/ticket.js';
import type { UnaryMethod } from '../../lib/grpc/client.js';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { callerMetadata, grpcCall, grpcFailure } from '../support/grpc.js';
import { signUpAndLogin, type Account } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let account: Account;
let events: EventServiceClient;
let tickets: TicketServiceClient;

beforeAll(async () => {
  stack = await startTestStack();
  account = await signUpAndLogin(stack);
  events = new EventServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
  tickets = new TicketServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
});

afterAll(async () => {
  events?.close();
  tickets?.close();
  await stack?.stop();
});

const call = <Req, Res>(method: UnaryMethod<Req, Res>, req: Req): Promise<Res> => grpcCall(method, req, callerMetadata(account.accessToken));
const failure = grpcFailure;

async function newTicket(fields: Partial<Ticket> = {}): Promise<Ticket> {
  const event = await call(events.createEvent.bind(events), { event: Event.fromPartial({ name: 'Contract' }), request_id: '' });
  const ticket = Ticket.fromPartial({ name: 'Contract ticket', vat_percentage: '21', ...fields });
  return call(tickets.createTicket.bind(tickets), { event_id: event.guid, ticket, request_id: '' });
}

const violationsOf = (err: ServiceError) => readErrorDetails(err).fieldViolations ?? [];

describe('ticketing.v1 contract', () => {
  it('status_overrule, barcode_type and status are enums; UNSPECIFIED is refused as a value', async () => {
    const created = await newTicket({ status_overrule: TicketStatusOverrule.TICKET_STATUS_OVERRULE_SOLD_OUT, barcode_type: BarcodeType.BARCODE_TYPE_NONE });
    expect(created.status_overrule).toBe(TicketStatusOverrule.TICKET_STATUS_OVERRULE_SOLD_OUT);
    expect(created.barcode_type).toBe(BarcodeType.BARCODE_TYPE_NONE);
    expect(created.status).toBe(TicketStatus.TICKET_STATUS_SOLD_OUT);
    const err = await failure(newTicket({ status_overrule: TicketStatusOverrule.TICKET_STATUS_OVERRULE_UNSPECIFIED }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(violationsOf(err)).toEqual([{ field: 'status_overrule', description: 'must be one of auto, available, sold_out, unavailable' }]);
  });

  it('NOT_FOUND carries google.rpc.ResourceInfo naming the type and the guid asked for', async () => {
    const missing = '0b7e7c4e-1f7a-4c2e-9d7e-3a1b2c3d4e5f';
    const ticketErr = await failure(call(tickets.getTicket.bind(tickets), { guid: missing }));
    expect(ticketErr.code).toBe(status.NOT_FOUND);
    expect(readErrorDetails(ticketErr).resource).toEqual({ type: 'ticketing.v1.Ticket', name: missing });
    const eventErr = await failure(call(events.getEvent.bind(events), { guid: missing }));
    expect(readErrorDetails(eventErr).resource).toEqual({ type: 'ticketing.v1.Event', name: missing });
  });

  it('UpdateTicketRequest.guid names the ticket; a different ticket.guid in the mask is refused by the service', async () => {
    const t = await newTicket();
    const other = await newTicket();
    const request = { guid: t.guid, ticket: Ticket.fromPartial({ guid: other.guid, description: 'no' }), update_mask: ['guid', 'description'], etag: '' };
    const err = await failure(call(tickets.updateTicket.bind(tickets), request));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(violationsOf(err)).toEqual([{ field: 'guid', description: 'is managed by the service and cannot be changed' }]);
    const same = await call(tickets.updateTicket.bind(tickets), { ...request, ticket: Ticket.fromPartial({ guid: t.guid.toUpperCase(), description: 'yes' }) });
    expect(same.description).toBe('yes');
  });

  it('the etag takes an If-Match value as sent: quoted, weak, a list, or only empty tags (no condition)', async () => {
    const t = await newTicket();
    const update = (etag: string, description: string) =>
      call(tickets.updateTicket.bind(tickets), { guid: t.guid, ticket: Ticket.fromPartial({ description }), update_mask: ['description'], etag });
    const first = await update(`"stale", W/"${t.etag}"`, 'a');
    expect(first.description).toBe('a');
    expect((await failure(update(`"${t.etag}"`, 'b'))).code).toBe(status.FAILED_PRECONDITION);
    expect((await update('"", ', 'c')).description).toBe('c');
  });
});
