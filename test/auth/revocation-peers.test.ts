import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger.js';
import { PEER_WAIT_MS, RevocationPeers } from '../../services/auth/revocation-peers.js';
import { PrivateRedis, waitFor } from '../support/redis-server.js';

/**
 * The doorbell that makes a revocation effective on every auth replica before it is answered
 * (services/auth/revocation-peers.ts), on a private redis-server so that it can be stopped and
 * frozen. `readNow` stands for a replica's read of the revocations table.
 */
describe('revocation peers', () => {
  let redis: PrivateRedis;
  const open: RevocationPeers[] = [];
  const logger = createLogger('test', 'silent');
  let prefix: string;

  const peer = (readNow: () => Promise<void>) => {
    const peers = new RevocationPeers(redis.url, prefix, readNow, 250, logger);
    open.push(peers);
    return peers;
  };
  const listening = (...peers: RevocationPeers[]) => waitFor(() => peers.every((p) => p.isListening), 5000, 10);
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

  beforeAll(async () => {
    redis = await PrivateRedis.start();
  });
  beforeEach(() => {
    prefix = `peers${Math.random().toString(36).slice(2, 8)}:`;
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('an announcement resolves only once every listening replica, itself included, has read the table', async () => {
    const reads: string[] = [];
    const reader = (name: string, ms: number) => async () => {
      await sleep(ms);
      reads.push(name);
    };
    const a = peer(reader('a', 0));
    const b = peer(reader('b', 50));
    const c = peer(reader('c', 300));
    await listening(a, b, c);
    await a.announce();
    expect(reads.sort()).toEqual(['a', 'b', 'c']);
    // Another announcement from another replica: each reads again.
    await c.announce();
    expect(reads.length).toBe(6);
  });

  it('a replica that never finishes its read holds an answer back at most PEER_WAIT_MS; the others still read', async () => {
    const reads: string[] = [];
    const a = peer(async () => void reads.push('a'));
    const stuck = peer(() => new Promise<void>(() => undefined));
    await listening(a, stuck);
    const started = Date.now();
    await a.announce();
    expect(Date.now() - started).toBeGreaterThanOrEqual(PEER_WAIT_MS - 10);
    expect(reads).toEqual(['a']);
  });

  it('with Redis down an announcement waits for nothing; with Redis frozen, at most PEER_WAIT_MS; both work again afterwards', async () => {
    let reads = 0;
    const a = peer(async () => void reads++);
    const b = peer(async () => void reads++);
    await listening(a, b);

    redis.freeze();
    const frozen = Date.now();
    await a.announce();
    expect(Date.now() - frozen, 'resolved although Redis hangs').toBeLessThan(PEER_WAIT_MS + 1000);
    redis.thaw();
    await waitFor(() => reads === 2, 5000, 10); // the wake was delivered late: no harm

    await redis.stop();
    await waitFor(() => !a.isListening, 5000, 10);
    reads = 0;
    const down = Date.now();
    await a.announce();
    expect(Date.now() - down, 'no wait for acknowledgements that cannot come').toBeLessThan(PEER_WAIT_MS);
    expect(reads, 'nobody was woken').toBe(0);

    await redis.resume();
    await listening(a, b);
    await b.announce();
    expect(reads).toBe(2);
  });
});
