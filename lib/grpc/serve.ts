import { Server, ServerCredentials, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { HealthImplementation, type ServingStatus } from 'grpc-health-check';
import type { Logger } from '../logger.js';
import { routeGrpcLogs } from './log.js';
import { addReflection } from './reflection.js';

export interface RunningServer {
  port: number;
  setServing(serving: boolean): void;
  /** Stops taking new calls, lets calls in flight finish (up to graceMs), then closes. */
  shutdown(graceMs?: number): Promise<void>;
}

/**
 * A gRPC server for one service with standard health checking: the overall status ('')
 * and the service's own name follow the readiness check run every `checkEveryMs`.
 */
export async function serveGrpc(options: {
  host: string;
  port: number;
  serviceName: string;
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
  logger: Logger;
  isReady: () => Promise<boolean>;
  /** Files under proto/ that describe what this server serves, for server reflection. */
  protoFiles: string[];
  checkEveryMs?: number;
  extend?: (server: Server) => void;
}): Promise<RunningServer> {
  routeGrpcLogs(options.logger);
  const server = new Server({ 'grpc.max_receive_message_length': 4 * 1024 * 1024 });
  server.addService(options.definition, options.implementation);
  const health = new HealthImplementation({ '': 'NOT_SERVING', [options.serviceName]: 'NOT_SERVING' });
  health.addToServer(server);
  options.extend?.(server);
  addReflection(server, options.protoFiles);

  let current: ServingStatus = 'NOT_SERVING';
  const setStatus = (next: ServingStatus) => {
    if (next === current) return;
    current = next;
    health.setStatus('', next);
    health.setStatus(options.serviceName, next);
    options.logger.info({ status: next }, 'health status changed');
  };
  const check = async () => setStatus((await options.isReady().catch(() => false)) ? 'SERVING' : 'NOT_SERVING');
  await check();
  const timer = setInterval(() => void check(), options.checkEveryMs ?? 2000);
  timer.unref();

  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${options.host}:${options.port}`, ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
  );
  options.logger.info({ port }, `${options.serviceName} listening`);

  return {
    port,
    setServing: (serving) => setStatus(serving ? 'SERVING' : 'NOT_SERVING'),
    shutdown: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        clearInterval(timer);
        setStatus('NOT_SERVING');
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}
