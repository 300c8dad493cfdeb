import { credentials, Metadata, type CallOptions, type ClientUnaryCall, type ServiceError } from '@grpc/grpc-js';
import { DNS_REFRESH_OPTION, refreshDnsTargets } from './dns-refresh.js';

// Every client of this code base dials with CLIENT_OPTIONS below: DNS targets are resolved again periodically.
refreshDnsTargets();

export type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/** One unary call with a deadline, as a promise. Rejects with the grpc-js ServiceError. */
export function callUnary<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, metadata: Metadata, deadlineMs: number): Promise<Res> {
  return new Promise((resolve, reject) => {
    method(request, metadata, { deadline: Date.now() + deadlineMs }, (err, response) => (err ? reject(err) : resolve(response)));
  });
}

/**
 * Channel options shared by every client: fail fast while a peer is down, reconnect quickly when it
 * is back, and spread calls round-robin over every address the target resolves to (several
 * replicas behind one DNS name or an `ipv4:` list) instead of grpc-js's default pick_first.
 */
export const CLIENT_OPTIONS = {
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 2000,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 5000,
  // grpc-js's transparent retry, and no retry policy: a call is resent only when the server's
  // application never saw it, so writes are as safe as reads. A replica shutting down sends
  // GOAWAY; the calls the client had already sent on that connection past the GOAWAY's last
  // stream are refused (UNAVAILABLE "Stream refused by server") and go once to another replica.
  // Without it a rolling upgrade lost such calls as 503s (test/ops/grpc-replica-shutdown.test.ts).
  'grpc.enable_retries': 1,
  // A replica added under a DNS name gets calls within 30 s (lib/grpc/dns-refresh.ts). The
  // service config is ours (above), so no DNS TXT lookup is needed to find one.
  [DNS_REFRESH_OPTION]: 30_000,
  'grpc.service_config_disable_resolution': 1,
  // A 1 MiB HTTP/2 receive window instead of 64 KiB: a long server stream (StreamTickets) is not
  // held up every 64 KiB waiting for a window update (docs/PERFORMANCE.md).
  'grpc-node.flow_control_window': 1024 * 1024,
};

export const insecure = credentials.createInsecure;

/** Metadata key of INTERNAL_API_KEY on gateway-to-service calls. */
export const INTERNAL_KEY_METADATA = 'x-internal-key';

/** What a text (non `-bin`) gRPC metadata value may hold: visible ASCII and space, as grpc-js checks. */
export function isMetadataText(value: string): boolean {
  return /^[\x20-\x7e]*$/.test(value);
}

/**
 * The caller identity travels as metadata: `authorization` and `company`. Repeated Company
 * values travel as one comma list (the same thing, PRODUCT section 4), so the number of
 * metadata entries stays fixed however many header lines a client sends.
 */
export function callerMetadata(authorization: string | undefined, companies: string[], requestId?: string): Metadata {
  const metadata = new Metadata();
  if (authorization) metadata.set('authorization', authorization);
  if (companies.length) metadata.set('company', companies.join(','));
  if (requestId) metadata.set('x-request-id', requestId);
  return metadata;
}

export function metadataStrings(metadata: Metadata, key: string): string[] {
  return metadata.get(key).map((v) => (typeof v === 'string' ? v : v.toString('utf8')));
}
