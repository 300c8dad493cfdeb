/**
 * Container health check, for images without curl:
 *   node dist/services/healthcheck.js auth|ticket|gateway|webhooks
 * auth / ticket: grpc.health.v1 Check('') on AUTH_GRPC_PORT / TICKET_GRPC_PORT must answer SERVING.
 * gateway: GET /healthz on PORT must answer 200 (it does when both services are SERVING).
 * webhooks: the delivery worker finished a round (database reachable) within the last 30 s.
 * Exit 0 healthy, 1 unhealthy, 2 usage or configuration error. Reads the same environment as the service.
 */
import { credentials, makeGenericClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { loadConfigOrExit, reachableHost } from '../lib/process/entrypoint.js';
import { lastBeatAgeMs } from './webhooks/heartbeat.js';

const TIMEOUT_MS = 3000;
const HealthClient = makeGenericClientConstructor(healthService, 'grpc.health.v1.Health');

function grpcServing(address: string): Promise<string> {
  const client = new HealthClient(address, credentials.createInsecure());
  return new Promise<string>((resolve) => {
    const check = (client as unknown as Record<string, (...args: unknown[]) => void>).check!;
    check.call(client, { service: '' }, { deadline: Date.now() + TIMEOUT_MS }, (err: ServiceError | null, response?: { status: string | number }) =>
      resolve(err ? `error: ${err.details || err.message}` : String(response?.status)),
    );
  }).finally(() => client.close());
}

async function httpStatus(url: string): Promise<string> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    return String(response.status);
  } catch (err) {
    return `error: ${err instanceof Error ? err.message : String(err)}`;
  }
}

const target = process.argv[2];
if (target !== 'auth' && target !== 'ticket' && target !== 'gateway' && target !== 'webhooks') {
  console.error('usage: healthcheck auth|ticket|gateway|webhooks');
  process.exit(2);
}
let healthy: boolean;
let answer: string;
if (target === 'webhooks') {
  const age = lastBeatAgeMs();
  answer = age === undefined ? 'no round yet' : `last round ${Math.round(age / 1000)} s ago`;
  healthy = age !== undefined && age < 30_000;
} else {
  const config = loadConfigOrExit('healthcheck');
  const host = reachableHost(config);
  if (target === 'gateway') {
    answer = await httpStatus(`http://${host}:${config.PORT}/healthz`);
    healthy = answer === '200';
  } else {
    answer = await grpcServing(`${host}:${target === 'auth' ? config.AUTH_GRPC_PORT : config.TICKET_GRPC_PORT}`);
    healthy = answer === 'SERVING' || answer === '1';
  }
}
console.log(`${target}: ${healthy ? 'healthy' : 'unhealthy'} (${answer})`);
process.exit(healthy ? 0 : 1);
