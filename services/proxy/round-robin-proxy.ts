import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { lookup } from 'node:dns/promises';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../lib/logger.js';
import { problemJson } from '../../gateway/problem.js';

/**
 * An HTTP reverse proxy that spreads requests round-robin over every address of its upstreams
 * (docker compose --scale gateway=N: the name `gateway` resolves to each replica). Names are
 * re-resolved at most once a second, so a replica that goes or comes is seen at once; an address
 * that refuses a connection is skipped for a second. A name whose lookup fails keeps the addresses
 * it last resolved to (a DNS hiccup must not cut every gateway off), and concurrent requests share
 * one lookup. X-Forwarded-For gets the client's address appended, so the gateway (TRUST_PROXY=1)
 * sees the real client for its rate limits.
 */
const RESOLVE_EVERY_MS = 1000;
const DOWN_FOR_MS = 1000;
const CONNECT_TIMEOUT_MS = 2000;
// A request idle this long upstream (no byte either way) is cut: the gateway's own deadlines are shorter.
const IDLE_TIMEOUT_MS = 60_000;
const RETRYABLE = new Set(['GET', 'HEAD', 'OPTIONS']);
// Bodies up to this size (the gateway's default BODY_LIMIT_BYTES) are read before forwarding, so a
// request whose connection was refused (nothing sent) can go to the next gateway; larger or
// chunked ones stream through, and a refused connection answers 503.
const BUFFERED_BODY_BYTES = 1024 * 1024;

interface Upstream {
  host: string;
  port: number;
}

export interface RunningProxy {
  port: number;
  /** Stops taking connections; waits up to graceMs for requests in flight. */
  shutdown(graceMs: number): Promise<void>;
}

export function parseUpstreams(value: string): Upstream[] {
  return value.split(',').map((entry) => {
    const [host, port] = entry.trim().split(':');
    return { host: host!, port: Number(port) };
  });
}

/** The IPv4 addresses a host name resolves to. */
export type Resolve = (host: string) => Promise<string[]>;

const resolveIpv4: Resolve = async (host) => (await lookup(host, { all: true, family: 4 })).map(({ address }) => address);

export async function startProxy(options: {
  upstreams: Upstream[];
  host: string;
  port: number;
  logger: Logger;
  resolve?: Resolve;
}): Promise<RunningProxy> {
  const { upstreams, logger, resolve = resolveIpv4 } = options;
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const downUntil = new Map<string, number>();
  /** Per upstream (its index), the addresses of its last successful lookup. */
  const lastGood = new Map<number, string[]>();
  let resolved: string[] = [];
  let resolvedAt = 0;
  let resolving: Promise<string[]> | undefined;
  let next = 0;

  async function resolveAll(): Promise<string[]> {
    const found = await Promise.all(
      upstreams.map(async ({ host, port }, index) => {
        try {
          const addresses = (await resolve(host)).map((address) => `${address}:${port}`);
          lastGood.set(index, addresses);
          return addresses;
        } catch (err) {
          const kept = lastGood.get(index) ?? [];
          logger.warn({ upstream: host, err: (err as Error).message, kept }, 'upstream lookup failed: keeping the last addresses');
          return kept;
        }
      }),
    );
    const fresh = [...new Set(found.flat())].sort();
    if (fresh.join() !== resolved.join()) logger.info({ upstreams: fresh }, 'upstreams');
    resolved = fresh;
    resolvedAt = Date.now();
    return resolved;
  }

  function addresses(): Promise<string[]> {
    if (Date.now() - resolvedAt < RESOLVE_EVERY_MS && resolved.length) return Promise.resolve(resolved);
    resolving ??= resolveAll().finally(() => {
      resolving = undefined;
    });
    return resolving;
  }

  /** The next address in turn that is not marked down (or, all down, the next one anyway). */
  async function pick(skip: Set<string>): Promise<string | undefined> {
    const all = (await addresses()).filter((a) => !skip.has(a));
    if (!all.length) return undefined;
    const now = Date.now();
    const up = all.filter((a) => (downUntil.get(a) ?? 0) <= now);
    const from = up.length ? up : all;
    return from[next++ % from.length];
  }

  function unavailable(res: ServerResponse, detail: string) {
    if (res.headersSent) return void res.destroy();
    res.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '1', 'cache-control': 'no-store' });
    res.end(problemJson({ status: 503, detail }));
  }

  /** The body, when it is small enough to keep for a retry (undefined: stream it). */
  async function bufferedBody(req: IncomingMessage): Promise<Buffer | undefined> {
    if (RETRYABLE.has(req.method ?? '')) return Buffer.alloc(0);
    const length = Number(req.headers['content-length']);
    if (!Number.isInteger(length) || length > BUFFERED_BODY_BYTES) return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async function forward(req: IncomingMessage, res: ServerResponse, tried: Set<string>, body: Buffer | undefined): Promise<void> {
    const target = await pick(tried);
    if (!target) return unavailable(res, 'No gateway is reachable right now; retry shortly.');
    tried.add(target);
    const [host, port] = target.split(':');
    const forwardedFor = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
    const upstream = httpRequest({
      host,
      port: Number(port),
      method: req.method,
      path: req.url,
      agent,
      headers: { ...req.headers, 'x-forwarded-for': forwardedFor },
    });
    let connected = false;
    upstream.on('socket', (socket) => {
      if (!socket.connecting) return void (connected = true);
      const timer = setTimeout(() => socket.destroy(new Error('connect timeout')), CONNECT_TIMEOUT_MS);
      socket.once('connect', () => {
        connected = true;
        clearTimeout(timer);
      });
    });
    upstream.setTimeout(IDLE_TIMEOUT_MS, () => upstream.destroy(new Error('upstream idle')));
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', (err) => {
      if (!connected) {
        downUntil.set(target, Date.now() + DOWN_FOR_MS);
        logger.warn({ upstream: target, err: err.message }, 'upstream unreachable');
      }
      // Never connected: nothing was sent, any request may go to the next gateway. Connected but no
      // answer (a kept-alive connection the gateway closed as it stopped): only one that changes nothing.
      const retry = !res.headersSent && body !== undefined && (!connected || RETRYABLE.has(req.method ?? ''));
      if (retry) return void forward(req, res, tried, body);
      unavailable(res, 'The gateway did not answer; retry shortly.');
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    if (body !== undefined) upstream.end(body);
    else req.pipe(upstream);
  }

  const server: Server = createServer((req, res) => {
    void bufferedBody(req)
      .then((body) => forward(req, res, new Set(), body))
      .catch(() => unavailable(res, 'The gateway did not answer; retry shortly.'));
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  await addresses();
  return {
    port: (server.address() as AddressInfo).port,
    async shutdown(graceMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearTimeout(timer);
      agent.destroy();
    },
  };
}
