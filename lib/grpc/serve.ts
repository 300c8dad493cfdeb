import { Server, ServerCredentials, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { HealthImplementation, service as healthService, type ServingStatus } from 'grpc-health-check';
import type { Logger } from '../logger.js';
import { listenFailure } from '../process/port-in-use.js';
import { routeGrpcLogs } from './log.js';
import { loadFileDescriptors } from './descriptor-set.js';
import { addReflection } from './reflection.js';

export interface RunningServer {
  port: number;
  /** false holds NOT_SERVING whatever the readiness check says, until true hands it back. */
  setServing(serving: boolean): void;
  /** Stops taking new calls, lets calls in flight finish (up to graceMs), then closes. */
  shutdown(graceMs?: number): Promise<void>;
}

export interface GrpcService {
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
}

/** The full name of a service ('ticketing.v1.TicketService'), read from its methods' paths ('/ticketing.v1.TicketService/GetTicket'). */
export function serviceNameOf(definition: ServiceDefinition): string {
  const names = new Set(Object.values(definition).map((method) => method.path.split('/')[1]!));
  if (names.size !== 1) throw new Error(`a service definition must name one service, not ${[...names].join(', ') || 'none'}`);
  return [...names][0]!;
}

/**
 * A gRPC server for the given services with standard health checking: the overall status ('')
 * and the name of every service it serves follow the readiness check run every `checkEveryMs`.
 * The health names are derived from the services registered here, so none can be missed.
 */
export async function serveGrpc(options: {
  host: string;
  port: number;
  /** The setting that chose the port (AUTH_GRPC_PORT, TICKET_GRPC_PORT), named when it is in use. */
  portSetting: string;
  services: GrpcService[];
  logger: Logger;
  isReady: () => Promise<boolean>;
  checkEveryMs?: number;
}): Promise<RunningServer> {
  routeGrpcLogs(options.logger);
  const server = new Server({ 'grpc.max_receive_message_length': 4 * 1024 * 1024 });
  const healthNames = ['', ...options.services.map((service) => serviceNameOf(service.definition))];
  for (const service of options.services) server.addService(service.definition, service.implementation);
  const health = new HealthImplementation(Object.fromEntries(healthNames.map((name) => [name, 'NOT_SERVING' as ServingStatus])));
  health.addToServer(server);
  // Reflection is a convenience for tools: without the descriptors the services still serve.
  const files = await loadFileDescriptors().catch((err: unknown) => {
    options.logger.warn({ err }, 'gRPC server reflection is off: the proto descriptors could not be loaded');
  });
  if (files) addReflection(server, files, [...healthNames.slice(1), serviceNameOf(healthService)]);

  let current: ServingStatus = 'NOT_SERVING';
  let heldDown = false;
  const setStatus = (next: ServingStatus) => {
    if (next === current) return;
    current = next;
    for (const name of healthNames) health.setStatus(name, next);
    options.logger.info({ status: next }, 'health status changed');
  };
  const check = async () => {
    const ready = await options.isReady().catch(() => false);
    setStatus(ready && !heldDown ? 'SERVING' : 'NOT_SERVING');
  };
  await check();
  const timer = setInterval(() => void check(), options.checkEveryMs ?? 2000);
  timer.unref();

  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${options.host}:${options.port}`, ServerCredentials.createInsecure(), (err, bound) => (err ? reject(listenFailure(err, options.portSetting, options.host, options.port)) : resolve(bound))),
  );
  options.logger.info({ port, services: healthNames.slice(1) }, 'gRPC listening');

  return {
    port,
    setServing: (serving) => {
      heldDown = !serving;
      if (heldDown) setStatus('NOT_SERVING');
      else void check();
    },
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
