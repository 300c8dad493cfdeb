/** The ticket service as its own process: `node dist/services/ticket/main.js` (gRPC ticketing.v1 on TICKET_GRPC_PORT). */
import { createLogger } from '../../lib/logger.js';
import { startMetrics } from '../../lib/metrics-server.js';
import { exitOnStartFailure, loadConfigOrExit, reachableHost } from '../../lib/process/entrypoint.js';
import { shutdownOnSignals } from '../../lib/process/shutdown.js';
import { startTicketService } from './server.js';

const config = loadConfigOrExit('ticket');
const logger = createLogger('ticket', config.LOG_LEVEL);
const ticket = await startTicketService(config, logger).catch(exitOnStartFailure('ticket service'));
const metrics = await startMetrics(config, logger).catch(exitOnStartFailure('ticket service metrics'));
logger.info(
  { address: `${reachableHost(config)}:${ticket.port}`, bind: config.BIND_HOST, auth: config.authGrpcAddress, metricsPort: metrics?.port },
  'ticket service ready (gRPC ticketing.v1)',
);
shutdownOnSignals(
  async (graceMs) => {
    await Promise.all([ticket.shutdown(graceMs), metrics?.close()]);
  },
  { logger, graceMs: config.SHUTDOWN_GRACE_MS },
);
