import { createServer, type Server } from 'node:http';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { listenFailure } from './process/port-in-use.js';
import { registry } from './metrics.js';

export interface RunningMetrics {
  port: number;
  close(): Promise<void>;
}

/**
 * Prometheus GET /metrics of this process on METRICS_HOST:METRICS_PORT, a port of its own
 * (the gateway's public port does not serve it), or nothing with METRICS_PORT=off. In the
 * one-process stack the one registry covers all three parts.
 */
export async function startMetrics(config: Pick<Config, 'METRICS_HOST' | 'METRICS_PORT'>, logger: Logger): Promise<RunningMetrics | undefined> {
  if (config.METRICS_PORT === 'off') return undefined;
  const metrics = await serveMetrics(config.METRICS_HOST, config.METRICS_PORT);
  logger.info({ host: config.METRICS_HOST, port: metrics.port }, 'metrics listening');
  return metrics;
}

async function serveMetrics(host: string, port: number): Promise<RunningMetrics> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => server.listen(port, host, resolve).once('error', (err) => reject(listenFailure(err, 'METRICS_PORT', host, port))));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
