/** The auth service as its own process: `node dist/services/auth/main.js` (gRPC auth.v1 on AUTH_GRPC_PORT). */
import { createLogger } from '../../lib/logger.js';
import { startMetrics } from '../../lib/metrics-server.js';
import { exitOnStartFailure, loadConfigOrExit, reachableHost } from '../../lib/process/entrypoint.js';
import { shutdownOnSignals } from '../../lib/process/shutdown.js';
import { startAuthService } from './server.js';

const config = loadConfigOrExit('auth');
const logger = createLogger('auth', config.LOG_LEVEL);
const auth = await startAuthService(config, logger).catch(exitOnStartFailure('auth service'));
const metrics = await startMetrics(config, logger).catch(exitOnStartFailure('auth service metrics'));
logger.info({ address: `${reachableHost(config)}:${auth.port}`, bind: config.BIND_HOST, metricsPort: metrics?.port }, 'auth service ready (gRPC auth.v1)');
shutdownOnSignals(
  async (graceMs) => {
    await Promise.all([auth.shutdown(graceMs), metrics?.close()]);
  },
  { logger, graceMs: config.SHUTDOWN_GRACE_MS },
);
