import { Metadata, status, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { isDependencyDown } from '../dependency-down.js';
import { isGuid } from '../ids.js';
import { Any } from '../gen/google/protobuf/any.js';
import { BadRequest, ErrorInfo, ResourceInfo, RetryInfo } from '../gen/google/rpc/error_details.js';
import { Status } from '../gen/google/rpc/status.js';

export { status as GrpcCode };

export interface FieldViolation {
  field: string;
  description: string;
}

export interface ErrorDetails {
  fieldViolations?: FieldViolation[];
  /** Machine-readable reason (google.rpc.ErrorInfo), e.g. an OAuth2 error code. */
  reason?: string;
  /** ErrorInfo.metadata: facts that go with the reason (e.g. the first scan's time). */
  reasonMetadata?: Record<string, string>;
  retryAfterSeconds?: number;
  /**
   * The message as a service wrote it (google.rpc.Status). Absent on errors that grpc-js
   * raised by itself (a reset stream, a refused frame): their text is internal.
   */
  message?: string;
  /** The resource that was not found (google.rpc.ResourceInfo). */
  resource?: { type: string; name: string };
}

const DETAILS_KEY = 'grpc-status-details-bin';
/** What a refusal listing invalid fields says, in the service's INVALID_ARGUMENT and in the gateway's own 422. */
export const INVALID_FIELDS_MESSAGE = 'The request has invalid fields.';
/** How much of a malformed id a message repeats. */
const SHOWN_ID_LENGTH = 40;
const TYPE_PREFIX = 'type.googleapis.com/';

/**
 * The most field violations one answer lists, gRPC or REST (issue 32, item 7): a body of
 * 30,000 unknown keys is told about the first 20 and how many there were in all, not 30,000.
 */
export const MAX_VIOLATIONS_SHOWN = 20;
/** How much of a field name an answer repeats (a key may be 1 MiB long), and of a description (which may quote a nested key). */
const SHOWN_FIELD_LENGTH = 200;
const SHOWN_DESCRIPTION_LENGTH = 1000;
/** The ErrorInfo reason of an INVALID_ARGUMENT whose violations were cut; its metadata `violation_count` is the whole number. */
export const VIOLATIONS_CUT_REASON = 'too_many_invalid_fields';

const cut = (text: string, length: number) => (text.length > length ? `${text.slice(0, length)}...` : text);

/** The violations an answer shows: the first MAX_VIOLATIONS_SHOWN, each field name cut at 200 characters and description at 1,000. */
export function shownViolations(violations: readonly FieldViolation[]): FieldViolation[] {
  return violations
    .slice(0, MAX_VIOLATIONS_SHOWN)
    .map(({ field, description }) => ({ field: cut(field, SHOWN_FIELD_LENGTH), description: cut(description, SHOWN_DESCRIPTION_LENGTH) }));
}

/** How many violations an INVALID_ARGUMENT stood for: its `violation_count` when they were cut, else those it lists. */
export function violationCount(details: ErrorDetails): number {
  const count = details.reason === VIOLATIONS_CUT_REASON ? Number(details.reasonMetadata?.violation_count) : NaN;
  return Number.isInteger(count) && count > 0 ? count : (details.fieldViolations?.length ?? 0);
}

/**
 * An error that is meant to cross a process boundary: a gRPC status code, a message that is
 * safe to show to the caller, and standard google.rpc details.
 */
export class RpcError extends Error {
  constructor(
    public readonly code: status,
    message: string,
    public readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.name = 'RpcError';
  }

  static invalidArgument(violations: FieldViolation[], message = INVALID_FIELDS_MESSAGE): RpcError {
    return new RpcError(status.INVALID_ARGUMENT, message, { fieldViolations: violations });
  }
  /** `resource`: the full message name and the name (guid) that was asked for, as google.rpc.ResourceInfo. */
  static notFound(what: string, resource?: { type: string; name: string }): RpcError {
    return new RpcError(status.NOT_FOUND, `${what} not found.`, { resource });
  }
  /**
   * NOT_FOUND for a record named by a GUID as sent: one that is not a GUID at all says so
   * (`/ticket/null`: an empty variable in the client is the usual cause), which a missing
   * record or another company's cannot be confused with, the GUID form being public.
   */
  static notFoundById(what: string, id: string, resource?: { type: string; name: string }): RpcError {
    if (isGuid(id.trim())) return RpcError.notFound(what, resource);
    const shown = JSON.stringify(id.length > SHOWN_ID_LENGTH ? `${id.slice(0, SHOWN_ID_LENGTH)}...` : id);
    const message = `${what} not found: ${shown} is not a GUID (an id looks like 3f2b8c1e-5d4a-4b7e-9c1f-2a6d8e0b4c7a; an empty variable in the client is the usual cause).`;
    return new RpcError(status.NOT_FOUND, message, { resource });
  }
  static unauthenticated(message: string, reason?: string): RpcError {
    return new RpcError(status.UNAUTHENTICATED, message, { reason });
  }
  static unavailable(message: string, retryAfterSeconds = 1): RpcError {
    return new RpcError(status.UNAVAILABLE, message, { retryAfterSeconds });
  }
}

/** The status object a grpc-js server callback takes, with details in the standard trailer. */
export function toStatusObject(err: RpcError): Partial<StatusObject> {
  const details: Any[] = [];
  const { fieldViolations, retryAfterSeconds, resource } = err.details;
  let { reason, reasonMetadata } = err.details;
  if (fieldViolations?.length) {
    // The first 20 cross the wire, and how many there were when more (issue 32, item 7).
    if (fieldViolations.length > MAX_VIOLATIONS_SHOWN && !reason) [reason, reasonMetadata] = [VIOLATIONS_CUT_REASON, { violation_count: String(fieldViolations.length) }];
    const shown = shownViolations(fieldViolations);
    details.push(pack('google.rpc.BadRequest', BadRequest.encode({ field_violations: shown.map((v) => ({ ...v, reason: '' })) }).finish()));
  }
  if (reason) details.push(pack('google.rpc.ErrorInfo', ErrorInfo.encode({ reason, domain: 'ticketing', metadata: reasonMetadata ?? {} }).finish()));
  if (resource) {
    const info = { resource_type: resource.type, resource_name: resource.name, owner: '', description: '' };
    details.push(pack('google.rpc.ResourceInfo', ResourceInfo.encode(info).finish()));
  }
  if (retryAfterSeconds !== undefined) {
    details.push(pack('google.rpc.RetryInfo', RetryInfo.encode({ retry_delay: { seconds: retryAfterSeconds, nanos: 0 } }).finish()));
  }
  // Always sent, details or not: it marks the message as ours, safe to show (readErrorDetails).
  const metadata = new Metadata();
  metadata.set(DETAILS_KEY, Buffer.from(Status.encode({ code: err.code, message: err.message, details }).finish()));
  return { code: err.code, details: err.message, metadata };
}

function pack(typeName: string, value: Uint8Array): Any {
  return { type_url: TYPE_PREFIX + typeName, value: Buffer.from(value) };
}

/** Reads the standard details back out of an error received by a grpc-js client. */
export function readErrorDetails(err: Pick<ServiceError, 'metadata'>): ErrorDetails {
  const raw = err.metadata?.get(DETAILS_KEY)?.[0];
  if (!raw || typeof raw === 'string') return {};
  const result: ErrorDetails = {};
  try {
    const decoded = Status.decode(raw);
    result.message = decoded.message;
    for (const detail of decoded.details) {
      const typeName = detail.type_url.slice(detail.type_url.lastIndexOf('/') + 1);
      if (typeName === 'google.rpc.BadRequest') {
        result.fieldViolations = BadRequest.decode(detail.value).field_violations.map(({ field, description }) => ({ field, description }));
      } else if (typeName === 'google.rpc.ErrorInfo') {
        const info = ErrorInfo.decode(detail.value);
        result.reason = info.reason;
        if (Object.keys(info.metadata).length) result.reasonMetadata = info.metadata;
      } else if (typeName === 'google.rpc.ResourceInfo') {
        const info = ResourceInfo.decode(detail.value);
        result.resource = { type: info.resource_type, name: info.resource_name };
      } else if (typeName === 'google.rpc.RetryInfo') {
        result.retryAfterSeconds = RetryInfo.decode(detail.value).retry_delay?.seconds;
      }
    }
  } catch {
    return {};
  }
  return result;
}

export function isServiceError(err: unknown): err is ServiceError {
  return typeof err === 'object' && err !== null && typeof (err as ServiceError).code === 'number' && 'metadata' in err;
}

/** Lets an RpcError from a downstream service pass through unchanged (e.g. the auth check's 401/400). */
export function fromServiceError(err: ServiceError): RpcError {
  if (err.code === status.DEADLINE_EXCEEDED) return new RpcError(status.UNAVAILABLE, 'A dependency did not answer in time.', { retryAfterSeconds: 1 });
  if (isDependencyDown(err)) return RpcError.unavailable('A dependency is unavailable.');
  const details = readErrorDetails(err);
  // grpc-js's own error on the way to the dependency: a fault here, its text is not passed on.
  if (details.message === undefined) return new RpcError(status.INTERNAL, 'Internal error.');
  return new RpcError(err.code, details.message, details);
}
