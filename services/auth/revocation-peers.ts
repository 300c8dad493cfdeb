import { randomUUID } from 'node:crypto';
import type { Logger } from '../../lib/logger.js';
import { closeRedis, openRedis, withTimeout, type RedisConnection } from '../../lib/redis-connection.js';

/** The longest a revocation's answer waits for the other auth replicas to have pushed it. */
export const PEER_WAIT_MS = 1000;

/**
 * Makes a revocation effective on every auth replica before it is answered (PRODUCT 11, "a
 * revocation is effective on every replica at once"). The replica that revoked publishes a
 * wake on Redis; every replica listening (itself included) reads the revocations table at once,
 * which pushes the new rows to its WatchRevocations streams, and then acknowledges. The
 * revocation is answered when every listener has acknowledged, or after PEER_WAIT_MS.
 *
 * Redis is only the doorbell: the rows come from the database, so a lost wake or ack costs
 * time, never a revocation. The number to wait for is what PUBLISH says received the wake: a
 * foreign subscriber to the channel (a pattern subscription of a monitoring tool) only makes
 * answers wait the full PEER_WAIT_MS; on Redis Cluster, where PUBLISH counts one node's
 * subscribers, answers may go out before every replica has pushed (docs/scaling.md). While Redis is down nothing waits, and every replica still reads
 * the table every REVOCATION_POLL_INTERVAL_MS (docs/auth.md, "Checks at the edge").
 */
export class RevocationPeers {
  private readonly publisher: RedisConnection;
  private readonly listener: RedisConnection;
  private readonly channels: { wake: string; ack: string };
  private subscribed = false;
  private readonly waiting = new Map<string, { acked: number; expected?: number; done: () => void }>();

  constructor(
    url: string,
    prefix: string,
    /** Reads the revocations table now and pushes what is new; resolves when that read is done. */
    private readonly readNow: () => Promise<void>,
    /** REDIS_COMMAND_TIMEOUT_MS: an acknowledgement to a Redis that hangs is given up after it. */
    private readonly timeoutMs: number,
    private readonly logger: Pick<Logger, 'warn' | 'info'>,
  ) {
    this.channels = { wake: `${prefix}revocations:wake`, ack: `${prefix}revocations:ack` };
    this.publisher = openRedis(url, logger, { whileDown: 'revocations reach the other auth replicas by their polls', ready: 'redis revocation doorbell ready' });
    this.listener = openRedis(url, logger, { whileDown: 'revocations from other auth replicas are read by polling', ready: 'redis revocation listener ready' }, () => void this.listen());
  }

  /**
   * Wakes every replica and waits (at most PEER_WAIT_MS) until each has read the revocations
   * table, so that their streams carry what this process just committed. Never rejects.
   */
  async announce(): Promise<void> {
    if (!this.publisher.isReady) return;
    const nonce = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    const acked = new Promise<void>((done) => {
      this.waiting.set(nonce, { acked: 0, done });
      timer = setTimeout(done, PEER_WAIT_MS);
    });
    try {
      const receivers = await Promise.race([this.publisher.publish(this.channels.wake, nonce), acked.then(() => 0)]);
      // Without our own listener the acknowledgements cannot arrive: the polls will do.
      if (!this.isListening) return;
      const entry = this.waiting.get(nonce);
      if (!entry) return;
      entry.expected = receivers;
      if (entry.acked >= receivers) entry.done();
      await acked;
      if (entry.acked < receivers) this.logger.warn({ acknowledged: entry.acked, listening: receivers }, 'not every auth replica confirmed a revocation in time; the others read it by their polls');
    } catch {
      // Redis went away meanwhile: the polls will do.
    } finally {
      clearTimeout(timer);
      this.waiting.delete(nonce);
    }
  }

  /** Our own listener is up: acknowledgements can reach us. */
  get isListening(): boolean {
    return this.subscribed && this.listener.isReady;
  }

  async close(): Promise<void> {
    await Promise.all([closeRedis(this.listener), closeRedis(this.publisher)]);
  }

  /** Subscribes once; node-redis subscribes again by itself after a reconnection. */
  private async listen(): Promise<void> {
    if (this.subscribed) return;
    try {
      await this.listener.subscribe([this.channels.wake, this.channels.ack], (nonce, channel) => {
        if (channel === this.channels.ack) this.acknowledged(nonce);
        else void this.woken(nonce);
      });
      this.subscribed = true;
    } catch {
      // Not ready after all: the next 'ready' tries again.
    }
  }

  private async woken(nonce: string): Promise<void> {
    await this.readNow();
    if (!this.publisher.isReady) return;
    await withTimeout(this.publisher.publish(this.channels.ack, nonce), this.timeoutMs).catch(() => undefined);
  }

  private acknowledged(nonce: string): void {
    const entry = this.waiting.get(nonce);
    if (!entry) return;
    entry.acked++;
    if (entry.expected !== undefined && entry.acked >= entry.expected) entry.done();
  }
}
