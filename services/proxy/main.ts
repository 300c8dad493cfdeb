/**
 * The HTTP round-robin proxy as its own process: `node dist/services/proxy/main.js`, in front
 * of the gateway replicas of `docker compose up --scale gateway=N` (docs/scaling.md).
 */
import { ConfigError, loadProxyConfig, type ProxyConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { exitOnStartFailure } from '../../lib/process/entrypoint.js';
import { shutdownOnSignals } from '../../lib/process/shutdown.js';
import { parseUpstreams, startProxy } from './round-robin-proxy.js';

let config: ProxyConfig;
try {
  config = loadProxyConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message);
  process.exit(2);
}
const logger = createLogger('proxy', config.LOG_LEVEL);
const proxy = await startProxy({ upstreams: parseUpstreams(config.PROXY_UPSTREAM), host: config.BIND_HOST, port: config.PORT, logger }).catch(
  exitOnStartFailure('proxy'),
);
logger.info({ port: proxy.port, upstream: config.PROXY_UPSTREAM }, 'proxy ready');
shutdownOnSignals((graceMs) => proxy.shutdown(graceMs), { logger, graceMs: config.SHUTDOWN_GRACE_MS });
