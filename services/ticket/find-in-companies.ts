import { GrpcCode, RpcError } from '../../lib/grpc/errors.js';
import { storedGuid } from './request-guid.js';

/** What a request can name that may not be found, with the type its NOT_FOUND names (google.rpc.ResourceInfo). */
const RESOURCE_TYPES = {
  Event: 'ticketing.v1.Event',
  Ticket: 'ticketing.v1.Ticket',
  Reservation: 'ticketing.v1.Reservation',
  Barcode: 'ticketing.v1.Barcode',
  Webhook: 'ticketing.v1.Webhook',
} as const;

export type ResourceKind = keyof typeof RESOURCE_TYPES;

/** How much of a malformed id a message repeats. */
const SHOWN_LENGTH = 40;

/**
 * NOT_FOUND for `kind`; `name` is the guid or barcode as sent. A name that is not a GUID where
 * one is expected says so (`/ticket/null`: a client sent an empty variable), which a missing
 * record of another company's cannot be confused with: the GUID form is public knowledge.
 */
export function notFound(kind: ResourceKind, name: string): RpcError {
  const resource = { type: RESOURCE_TYPES[kind], name };
  if (kind === 'Barcode' || storedGuid(name) !== undefined) return RpcError.notFound(kind, resource);
  const shown = JSON.stringify(name.length > SHOWN_LENGTH ? `${name.slice(0, SHOWN_LENGTH)}...` : name);
  const message = `${kind} not found: ${shown} is not a GUID (an id looks like 3f2b8c1e-5d4a-4b7e-9c1f-2a6d8e0b4c7a; an empty variable in the client is the usual cause).`;
  return new RpcError(GrpcCode.NOT_FOUND, message, { resource });
}

/**
 * The record a request's `guid` names among the caller's companies, else NOT_FOUND: another
 * company's record and a malformed GUID read the same as a missing one.
 */
export async function findInCompanies<T>(
  kind: ResourceKind,
  companyIds: string[],
  guid: string,
  find: (companyIds: string[], id: string) => Promise<T | undefined>,
): Promise<T> {
  const id = storedGuid(guid);
  const found = id ? await find(companyIds, id) : undefined;
  if (!found) throw notFound(kind, guid);
  return found;
}
