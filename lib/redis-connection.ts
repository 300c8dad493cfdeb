import { createClient } from 'redis';
import type { Logger } from './logger.js';

function newClient(url: string) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 1000, reconnectStrategy: (retries: number) => Math.min(100 * (retries + 1), 1000) },
  });
}

export type RedisConnection = ReturnType<typeof newClient>;

/**
 * A node-redis client as every part uses one: no offline queue (while Redis is down a command
 * fails at once instead of waiting), a short connect timeout, reconnection within a second,
 * the outage logged at most every 10 s (`whileDown` says what the process does meanwhile), and
 * `onReady` run on every (re)connection. Connects in the background.
 */
export function openRedis(url: string, logger: Pick<Logger, 'warn' | 'info'>, messages: { whileDown: string; ready: string }, onReady?: () => void): RedisConnection {
  const client = newClient(url);
  let lastErrorLog = 0;
  client.on('error', (err: Error) => {
    if (Date.now() - lastErrorLog > 10_000) {
      lastErrorLog = Date.now();
      logger.warn({ err: err.message }, `redis unavailable; ${messages.whileDown}`);
    }
  });
  client.on('ready', () => {
    logger.info(messages.ready);
    onReady?.();
  });
  client.connect().catch(() => undefined);
  return client;
}

/** Closes a client opened by openRedis; one that cannot close cleanly is destroyed. */
export async function closeRedis(client: RedisConnection): Promise<void> {
  try {
    if (client.isOpen) await client.close();
  } catch {
    client.destroy();
  }
}

/** A Redis command that gives up after `timeoutMs` (a frozen Redis must not hold a request up). */
export function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('redis command timed out')), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
