import { status, type ServiceError } from '@grpc/grpc-js';
import { readErrorDetails } from '../lib/grpc/errors.js';

/** What went wrong, in words a shop can act on, with the standard google.rpc details of the error (every gRPC example prints it). */
export function refusal(err: ServiceError): string {
  const details = readErrorDetails(err);
  const what = `${status[err.code]}: ${details.message ?? err.details}`;
  switch (err.code) {
    case status.INVALID_ARGUMENT: // a bad request: fix the fields named (google.rpc.BadRequest)
      return [what, ...(details.fieldViolations ?? []).map((v) => `  ${v.field}: ${v.description}`)].join('\n');
    case status.NOT_FOUND: // the ticket, reservation, order, event or barcode does not exist for this token (google.rpc.ResourceInfo)
      return `${what} (${details.resource?.type ?? 'resource'} ${details.resource?.name ?? ''})`;
    // A refused stock move: the reason is a key of STOCK_CONFLICTS (lib/stock-conflicts.ts, with its status); the metadata
    // says more, e.g. remaining (insufficient_stock), scanned_at (already_scanned), an order line's ticket_id.
    case status.FAILED_PRECONDITION:
    case status.ALREADY_EXISTS:
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
