import { STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Config } from '../lib/config.js';
import { EventLoopLag } from '../lib/event-loop-lag.js';
import { routeGrpcLogs } from '../lib/grpc/log.js';
import type { Logger } from '../lib/logger.js';
import { listenFailure } from '../lib/process/port-in-use.js';
import { RateLimitStore } from '../lib/rate-limit/redis-store.js';
import { createApp } from './app.js';
import { createBackendClients } from './clients.js';
import { problemJson } from './problem.js';
import { NO_STORE, oauthRequestError, tokenEndpoint } from './routes/auth.js';

export interface RunningGateway {
  port: number;
  shutdown(graceMs?: number): Promise<void>;
}

/**
 * Connections waiting to be accepted. Node's default (511) overflows when an on-sale opens and
 * thousands of clients connect in the same second: the kernel drops the rest's SYNs and they
 * retry after 1, 3, 7, 15 s, which showed as a 16 s p99 and failed connects in the rush bench.
 * The kernel caps it at net.core.somaxconn (4096 on current Linux).
 */
const LISTEN_BACKLOG = 4096;

export async function startGateway(config: Config, logger: Logger): Promise<RunningGateway> {
  routeGrpcLogs(logger);
  const clients = createBackendClients(config.authGrpcAddress, config.ticketGrpcAddress);
  // The API's rate limits are shared by every gateway on the same Redis (docs/rate-limits.md).
  const rateLimitStore = config.REDIS_URL ? new RateLimitStore(config.REDIS_URL, config.REDIS_KEY_PREFIX, config.REDIS_COMMAND_TIMEOUT_MS, logger) : undefined;
  // While draining, /readyz answers 503 and every response closes its connection, so busy
  // keep-alive clients cannot hold the server open past the requests it already accepted.
  let closing = false;
  const loopLag = config.SHED_NEW_SALES_LAG_MS ? new EventLoopLag() : undefined;
  const app = createApp(config, clients, logger, { rateLimitStore, isDraining: () => closing, loopLag });
  const server: Server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(config.PORT, config.BIND_HOST, LISTEN_BACKLOG, (err?: Error) => (err ? reject(listenFailure(err, 'PORT', config.BIND_HOST, config.PORT)) : resolve(s)));
  }).catch(async (err: unknown) => {
    loopLag?.stop();
    clients.close();
    await rateLimitStore?.close();
    throw err;
  });
  const isTokenRequest = tokenEndpoint(config.AUTH_PATH_PREFIX);
  server.on('clientError', (err: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex) => answerUnparsable(err, socket, isTokenRequest));
  server.keepAliveTimeout = 5000;
  server.requestTimeout = 60_000;
  const open = new Set<ServerResponse>();
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (closing) res.setHeader('Connection', 'close');
    open.add(res);
    res.on('close', () => open.delete(res));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  logger.info({ port }, 'gateway listening');
  return {
    port,
    shutdown: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        closing = true;
        for (const res of open) if (!res.headersSent) res.setHeader('Connection', 'close');
        const force = setTimeout(() => {
          server.closeAllConnections();
        }, graceMs);
        server.close(() => {
          clearTimeout(force);
          loopLag?.stop();
          clients.close();
          void (rateLimitStore?.close() ?? Promise.resolve()).finally(resolve);
        });
        server.closeIdleConnections();
      }),
  };
}

/**
 * A request node's HTTP parser refuses (a control byte in a header, headers over 16 KiB, ...)
 * is answered as a problem too, instead of node's bare status line; on the token endpoints
 * in RFC 6749 form (the path is read from the request line when it got that far).
 */
function answerUnparsable(err: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex, isTokenRequest: (method: string, path: string) => boolean): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const problem = { status, detail: status === 431 ? 'The request headers are too large.' : status === 408 ? 'The request took too long to arrive.' : 'The request could not be parsed as HTTP/1.1.' };
  const [, method = '', path = ''] = /^([A-Z]+) ([^ ?\r\n]*)/.exec(err.rawPacket?.toString('latin1') ?? '') ?? [];
  const answer = isTokenRequest(method, path)
    ? { ...oauthRequestError(problem), headers: { 'Content-Type': 'application/json', ...NO_STORE } }
    : { status, body: problemJson(problem), headers: { 'Content-Type': 'application/problem+json' } };
  const head = Object.entries({ ...answer.headers, 'Content-Length': String(Buffer.byteLength(answer.body)), Connection: 'close' }).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n${head.join('')}\r\n${answer.body}`);
}
