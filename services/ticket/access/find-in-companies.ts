import { RpcError } from '../../../lib/grpc/errors.js';
import { storedGuid } from './request-guid.js';

/** What a request can name that may not be found, with the type its NOT_FOUND names (google.rpc.ResourceInfo). */
const RESOURCE_TYPES = {
  Event: 'ticketing.v1.Event',
  Ticket: 'ticketing.v1.Ticket',
  Reservation: 'ticketing.v1.Reservation',
  Order: 'ticketing.v1.Order',
  Barcode: 'ticketing.v1.Barcode',
  Webhook: 'ticketing.v1.Webhook',
  Coupon: 'ticketing.v1.Coupon',
} as const;

export type ResourceKind = keyof typeof RESOURCE_TYPES;

/** NOT_FOUND for `kind`; `name` is the guid or barcode as sent (a malformed guid says it is not one). */
export function notFound(kind: ResourceKind, name: string): RpcError {
  const resource = { type: RESOURCE_TYPES[kind], name };
  return kind === 'Barcode' ? RpcError.notFound(kind, resource) : RpcError.notFoundById(kind, name, resource);
}

/**
 * The record a request's `guid` names among the caller's companies, else NOT_FOUND: another
 * company's record reads the same as a missing one; a malformed GUID says it is not one.
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
