import type { ServerWritableStream } from '@grpc/grpc-js';
import type { RevocationBatch as RevocationMessage, WatchRevocationsRequest } from '../../lib/gen/auth/v1/auth.js';
import { RpcError } from '../../lib/grpc/errors.js';
import type { RevocationBatch, RevocationFeed } from './revocation-feed.js';
import type { AuthStore } from './store/auth-store.js';

/** How often a quiet stream says it is alive; subscribers stop trusting a stream silent for several of these. */
export const HEARTBEAT_MS = 1000;
const PAGE = 1000;

const unavailable = () => RpcError.unavailable('This auth replica cannot read the revocations now; ask Authenticate, or subscribe again.', 1);

/**
 * One WatchRevocations stream: the revocations after the subscriber's cursor (from the table),
 * then those the feed reads as they come, with heartbeats in between. Ends with UNAVAILABLE
 * when the feed cannot read the database or the replica shuts down.
 */
export async function watchRevocations(
  feed: RevocationFeed,
  store: AuthStore,
  request: WatchRevocationsRequest,
  call: ServerWritableStream<WatchRevocationsRequest, RevocationMessage>,
): Promise<void> {
  if (!feed.isHealthy) throw unavailable();
  let live = false;
  const buffered: RevocationBatch[] = [];
  const send = (batch: RevocationBatch, caughtUp: boolean) =>
    call.write({ sequence: batch.sequence, session_ids: batch.sessionIds, caught_up: caughtUp });
  let finish!: () => void;
  let fail!: (err: unknown) => void;
  const ended = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  ended.catch(() => undefined); // it may fail before it is awaited (during the catch-up)
  const unsubscribe = feed.subscribe(
    (batch) => (live ? send(batch, true) : buffered.push(batch)),
    () => fail(unavailable()),
  );
  call.on('cancelled', () => finish());
  call.on('close', () => finish());
  let heartbeat: NodeJS.Timeout | undefined;
  try {
    let cursor = request.after_sequence > 0 ? request.after_sequence : feed.sequence;
    if (request.after_sequence > 0) {
      for (;;) {
        const rows = await store.revocationsAfter(cursor, PAGE);
        if (rows.length === 0) break;
        cursor = rows[rows.length - 1]!.sequence;
        send({ sequence: cursor, sessionIds: rows.map((row) => row.session_id) }, false);
        if (rows.length < PAGE) break;
      }
    }
    for (const batch of buffered.splice(0)) send(batch, false);
    live = true;
    send({ sequence: Math.max(cursor, feed.sequence), sessionIds: [] }, true);
    heartbeat = setInterval(() => send({ sequence: feed.sequence, sessionIds: [] }, true), HEARTBEAT_MS);
    await ended;
  } finally {
    clearInterval(heartbeat);
    unsubscribe();
  }
}
