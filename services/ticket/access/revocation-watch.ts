import { Metadata, type ClientReadableStream } from '@grpc/grpc-js';
import type { AuthServiceClient, RevocationBatch } from '../../../lib/gen/auth/v1/auth.js';
import type { Logger } from '../../../lib/logger.js';
import { revocationStreamUp } from '../../../lib/metrics.js';

/** A stream that says nothing for this long (heartbeats come every second) is taken for dead. */
const SILENCE_MS = 3500;
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 2000;

/**
 * The ticket service's view of revoked sessions, pushed by the auth service (WatchRevocations).
 * `isLive` holds only while the stream is up and caught up: then every revocation reaches
 * `isRevoked` as soon as an auth replica reads it. When the stream breaks, `epoch` moves and
 * `onLost` runs (the kept answers are dropped; checks ask the auth service until the stream is
 * back and caught up). The stream has no deadline: it lives as long as heartbeats arrive.
 */
export class RevocationWatch {
  private live = false;
  private generation = 0;
  private cursor = 0;
  private readonly revoked = new Map<string, number>();
  private call?: ClientReadableStream<RevocationBatch>;
  private silence?: NodeJS.Timeout;
  private retry?: NodeJS.Timeout;
  private retryMs = FIRST_RETRY_MS;
  private stopped = false;

  constructor(
    private readonly client: AuthServiceClient,
    /** How long a revoked session is remembered: longer than any kept answer can live. */
    private readonly rememberMs: number,
    private readonly onLost: () => void,
    private readonly logger: Pick<Logger, 'info' | 'warn'>,
  ) {}

  start(): void {
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
    const call = this.call;
    this.call = undefined;
    this.lose();
    call?.cancel();
  }

  get isLive(): boolean {
    return this.live;
  }

  /** Changes whenever the stream is lost: an answer asked for in an earlier epoch is not kept. */
  get epoch(): number {
    return this.generation;
  }

  isRevoked(sessionId: string): boolean {
    return this.revoked.has(sessionId);
  }

  /** When the push named the session (ms since the epoch): from then on every check refuses it. */
  revokedSince(sessionId: string): number | undefined {
    return this.revoked.get(sessionId);
  }

  private connect(): void {
    const call = this.client.watchRevocations({ after_sequence: this.cursor }, new Metadata());
    this.call = call;
    this.watchSilence(call);
    call.on('data', (batch: RevocationBatch) => {
      if (this.call !== call) return;
      this.watchSilence(call);
      this.retryMs = FIRST_RETRY_MS;
      const now = Date.now();
      for (const sessionId of batch.session_ids) this.revoked.set(sessionId, now);
      this.cursor = Math.max(this.cursor, batch.sequence);
      if (batch.caught_up && !this.live) {
        this.live = true;
        revocationStreamUp.set(1);
        this.logger.info('revocation push live: callers are checked locally');
      }
      this.forget(now);
    });
    call.on('error', () => this.broken(call));
    call.on('end', () => this.broken(call));
  }

  private watchSilence(call: ClientReadableStream<RevocationBatch>): void {
    clearTimeout(this.silence);
    this.silence = setTimeout(() => {
      call.cancel();
      this.broken(call);
    }, SILENCE_MS);
  }

  private broken(call: ClientReadableStream<RevocationBatch>): void {
    if (this.call !== call) return;
    this.call = undefined;
    clearTimeout(this.silence);
    if (this.live) this.logger.warn('revocation push lost: every call asks the auth service until it is back');
    this.lose();
    if (this.stopped) return;
    this.retry = setTimeout(() => this.connect(), this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
  }

  private lose(): void {
    this.generation++;
    clearTimeout(this.silence);
    if (this.live) {
      this.live = false;
      revocationStreamUp.set(0);
    }
    this.onLost();
  }

  private forget(now: number): void {
    if (this.revoked.size < 10_000) return;
    for (const [sessionId, at] of this.revoked) {
      if (now - at > this.rememberMs) this.revoked.delete(sessionId);
    }
  }
}
