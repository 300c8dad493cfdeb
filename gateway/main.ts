/** The HTTP gateway as its own process: `node dist/gateway/main.js` (the image's default command). */
import { createLogger } from '../lib/logger.js';
import { startMetrics } from '../lib/metrics-server.js';
import { exitOnStartFailure, loadConfigOrExit, reachableHost } from '../lib/process/entrypoint.js';
import { shutdownOnSignals } from '../lib/process/shutdown.js';
import { startGateway } from './server.js';

const config = loadConfigOrExit('gateway');
const logger = createLogger('gateway', config.LOG_LEVEL);
const gateway = await startGateway(config, logger).catch(exitOnStartFailure('gateway'));
const metrics = await startMetrics(config, logger).catch(exitOnStartFailure('gateway metrics'));
const baseUrl = `http://${reachableHost(config)}:${gateway.port}`;
logger.info(
  { url: baseUrl, authUrl: `${baseUrl}${config.AUTH_PATH_PREFIX}`, auth: config.authGrpcAddress, ticket: config.ticketGrpcAddress, metricsPort: metrics?.port },
  'gateway ready',
);
shutdownOnSignals(
  async (graceMs) => {
    await Promise.all([gateway.shutdown(graceMs), metrics?.close()]);
  },
  { logger, graceMs: config.SHUTDOWN_GRACE_MS },
);
