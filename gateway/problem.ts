import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import type { Response } from 'express';
import { STATUS_CODES } from 'node:http';
import { isDependencyDown } from '../lib/dependency-down.js';
import { INVALID_FIELDS_MESSAGE, MAX_VIOLATIONS_SHOWN, readErrorDetails, shownViolations, violationCount, type FieldViolation } from '../lib/grpc/errors.js';
import { isStockConflictCode, NUMBER_MEMBERS, TICKET_BUSY } from '../lib/stock-conflicts.js';
import { noteRefusal } from './request-log.js';

export interface Problem {
  status: number;
  detail: string;
  errors?: FieldViolation[];
  retryAfterSeconds?: number;
  /** Sent as RFC 6750 `error` in WWW-Authenticate: on a 401 (`invalid_token`) or a 403 (`insufficient_scope`). */
  authError?: string;
  /** Extension members: a refused stock move's (or a busy ticket's) machine-readable `code` and the facts that go with it. */
  members?: Record<string, string | number>;
}

/** Reasons of a PERMISSION_DENIED that the token's kind, not the caller, is refused for: RFC 6750 `insufficient_scope`. */
const INSUFFICIENT_SCOPE_REASONS = new Set(['user_session_required']);

/** Sends an RFC 9457 problem; every 401, and a 403 for the token's kind, carries WWW-Authenticate (RFC 6750 3). */
export function sendProblem(res: Response, problem: Problem): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (problem.status === 401 || (problem.status === 403 && problem.authError)) {
    const parts = ['Bearer realm="ticketing"'];
    if (problem.authError) parts.push(`error="${problem.authError}"`, `error_description="${problem.detail.replace(/["\\]/g, '')}"`);
    res.setHeader('WWW-Authenticate', parts.join(', '));
  }
  if (problem.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(Math.max(1, Math.ceil(problem.retryAfterSeconds))));
  noteRefusal(res, problemReason(problem));
  res.status(problem.status).type('application/problem+json');
  res.send(problemJson(problem));
}

/** The detail of a 422 naming query parameters rather than body fields. */
export const INVALID_QUERY_MESSAGE = 'The request has invalid query parameters.';

/** The 422: every invalid field (or query parameter) in `errors`, and what the request did wrong in `detail`. */
export function invalidFieldsProblem(errors: FieldViolation[], detail: string = INVALID_FIELDS_MESSAGE, count = errors.length): Problem {
  // The first 20 and, when there were more, how many in all (`error_count`; lib/grpc/errors.ts).
  const total = Math.max(count, errors.length);
  return { status: 422, detail, errors: shownViolations(errors), members: total > MAX_VIOLATIONS_SHOWN ? { error_count: total } : undefined };
}

/**
 * A refusal the gateway decides itself (a body, a query, a header it cannot pass on): thrown
 * where it is found, sent once by the app's error handler (gateway/app.ts).
 */
export class ProblemError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail);
    this.name = 'ProblemError';
  }
}

/** The 422 listing the invalid fields (the first 20, and their number when there were more), to throw. */
export function invalidFields(errors: FieldViolation[], detail?: string, count?: number): ProblemError {
  return new ProblemError(invalidFieldsProblem(errors, detail, count));
}

/** A problem in one line for the log: `insufficient_stock: Not enough stock…`, or the detail and each field's error. */
function problemReason(problem: Problem): string {
  const code = problem.members?.code;
  const more = typeof problem.members?.error_count === 'number' ? `; ${problem.members.error_count - (problem.errors?.length ?? 0)} more` : '';
  const fields = problem.errors?.map(({ field, description }) => `${field}: ${description}`).join('; ');
  return `${code ? `${code}: ` : ''}${problem.detail}${fields ? ` (${fields}${more})` : ''}`;
}

/** The RFC 9457 body of a problem. */
export function problemJson(problem: Problem): string {
  return JSON.stringify({
    type: 'about:blank',
    title: STATUS_CODES[problem.status] ?? 'Error',
    status: problem.status,
    detail: problem.detail,
    ...problem.members,
    ...(problem.errors ? { errors: problem.errors.map(({ field, description }) => ({ field, message: description })) } : {}),
  });
}

/**
 * gRPC status -> HTTP status, as grpc-gateway's runtime/errors.go, with two refinements of
 * ours: INVALID_ARGUMENT carrying field violations is a validation failure (422), and
 * FAILED_PRECONDITION is a failed If-Match (412).
 */
export function httpStatusFor(code: GrpcStatus, hasFieldViolations: boolean): number {
  switch (code) {
    case GrpcStatus.OK:
      return 200;
    case GrpcStatus.CANCELLED:
      return 499;
    case GrpcStatus.INVALID_ARGUMENT:
      return hasFieldViolations ? 422 : 400;
    case GrpcStatus.DEADLINE_EXCEEDED:
      return 504;
    case GrpcStatus.NOT_FOUND:
      return 404;
    case GrpcStatus.ALREADY_EXISTS:
    case GrpcStatus.ABORTED:
      return 409;
    case GrpcStatus.PERMISSION_DENIED:
      return 403;
    case GrpcStatus.UNAUTHENTICATED:
      return 401;
    case GrpcStatus.RESOURCE_EXHAUSTED:
      return 429;
    case GrpcStatus.FAILED_PRECONDITION:
      return 412;
    case GrpcStatus.OUT_OF_RANGE:
      return 400;
    case GrpcStatus.UNIMPLEMENTED:
      return 501;
    case GrpcStatus.UNAVAILABLE:
      return 503;
    default:
      return 500;
  }
}

/** Request fields that REST carries elsewhere than in the body: their names in a 422. */
const REST_FIELD_NAMES: Record<string, string> = { request_id: 'Idempotency-Key' };

/**
 * A gRPC error as a problem. Only a message a service wrote is passed on, and not for
 * INTERNAL/UNKNOWN. An error grpc-js raised by itself (no service wrote it: a stream reset
 * for oversized metadata, a refused frame) is the gateway's own fault, a 500 in our words,
 * unless it says the service is unreachable or late (503/504).
 */
export function problemFromGrpc(err: ServiceError): Problem {
  const details = readErrorDetails(err);
  // A call whose transport broke (the service died mid-call) is the service being unavailable.
  const code = err.code === GrpcStatus.INTERNAL && isDependencyDown(err) ? GrpcStatus.UNAVAILABLE : err.code;
  const local = details.message === undefined && code !== GrpcStatus.UNAVAILABLE && code !== GrpcStatus.DEADLINE_EXCEEDED;
  // grpc-js refusing a message over its size limit (or the peer's flow control) is not our bug
  // to hide behind a 500: the answer could not pass, which is a bad gateway. Every message is
  // bounded now (docs/stock-moves.md "Bounded messages"), so this is a guard, never a way to answer.
  const tooLarge = local && code === GrpcStatus.RESOURCE_EXHAUSTED;
  // A refused stock move is a 409 whatever its gRPC code; its reason becomes the `code` member.
  const stockConflict = !local && isStockConflictCode(details.reason);
  // A ticket too busy to queue a new reservation is a 503 + Retry-After, unlike a rate limit's 429.
  const busy = !local && code === GrpcStatus.RESOURCE_EXHAUSTED && details.reason === TICKET_BUSY;
  const status = tooLarge ? 502 : local ? 500 : stockConflict ? 409 : busy ? 503 : httpStatusFor(code, Boolean(details.fieldViolations?.length));
  let detail = details.message || STATUS_CODES[status] || 'Error';
  if (status >= 500 && status !== 503 && status !== 504) detail = 'Internal error.';
  if (tooLarge) detail = 'The answer was too large to pass through the gateway; read it page by page.';
  if (code === GrpcStatus.UNAVAILABLE) detail = 'A backend service is unavailable; try again shortly.';
  if (err.code === GrpcStatus.DEADLINE_EXCEEDED) detail = 'A backend service did not answer in time.';
  if (status === 422) {
    const violations = details.fieldViolations!.map((v) => ({ ...v, field: REST_FIELD_NAMES[v.field] ?? v.field }));
    return invalidFieldsProblem(violations, detail, violationCount(details));
  }
  return {
    status,
    detail,
    retryAfterSeconds: status === 503 ? (details.retryAfterSeconds ?? 1) : status === 429 ? (details.retryAfterSeconds ?? 1) : undefined,
    authError: authErrorFor(status, details.reason),
    // The reason of a refused move, or of a busy ticket, is the problem's `code` member.
    members: stockConflict || busy ? { ...conflictMembers(details.reasonMetadata), code: details.reason! } : undefined,
  };
}

/** A refused move's ErrorInfo metadata as problem members, whole numbers as JSON numbers. */
function conflictMembers(metadata: Record<string, string> = {}): Record<string, string | number> {
  return Object.fromEntries(Object.entries(metadata).map(([key, value]) => [key, NUMBER_MEMBERS.has(key) && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value]));
}

function authErrorFor(status: number, reason: string | undefined): string | undefined {
  // RFC 6750 3.1: no error code when the request carried no token at all.
  if (status === 401) return reason && reason !== 'missing_token' ? 'invalid_token' : undefined;
  if (status === 403 && reason && INSUFFICIENT_SCOPE_REASONS.has(reason)) return 'insufficient_scope';
  return undefined;
}
