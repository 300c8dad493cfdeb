import { Metadata, type ServiceError, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthServiceClient, AuthServiceService, type SigningKeySet } from '../../lib/gen/auth/v1/auth.js';
import { CLIENT_OPTIONS, insecure } from '../../lib/grpc/client.js';
import { serveGrpc, type RunningServer } from '../../lib/grpc/serve.js';
import { createLogger } from '../../lib/logger.js';
import { waitFor } from '../support/redis-server.js';

/**
 * One of two replicas shuts down (lib/grpc/serve.ts: NOT_SERVING, listener closed, GOAWAY, calls
 * in flight finished) while a client of CLIENT_OPTIONS keeps calling both round-robin. Calls the
 * client sends on its connection to that replica in the instant it sends GOAWAY were never handed
 * to the application: the server's HTTP/2 layer drops every stream above the GOAWAY's last stream
 * id, and the client sees them refused (REFUSED_STREAM, grpc-js: UNAVAILABLE "Stream refused by
 * server"). grpc-js's transparent retry resends exactly those to the other replica; without it
 * each one was an UNAVAILABLE (a 503 at the gateway) in a rolling upgrade.
 */
// Any unary method does: this one takes an empty request. Each replica names itself in the answer.
const definition = AuthServiceService;
/** How long each call stays in the server's hands, so some are in flight when the shutdown begins. */
const HOLD_MS = 20;
const BURST = 20;

describe('a gRPC replica that shuts down while clients keep calling', () => {
  const replicas: RunningServer[] = [];
  /** Calls each replica's application received, by name. */
  const received = new Map<string, number>();

  beforeAll(async () => {
    for (const name of ['old', 'other']) {
      const implementation = {
        getSigningKeys: (_call: unknown, callback: (err: null, value: SigningKeySet) => void) => {
          received.set(name, (received.get(name) ?? 0) + 1);
          setTimeout(() => callback(null, { keys: [{ kid: name, kty: '', crv: '', x: '', y: '', alg: '', use: '' }] }), HOLD_MS);
        },
      } as unknown as UntypedServiceImplementation;
      replicas.push(
        await serveGrpc({
          host: '127.0.0.1',
          port: 0,
          portSetting: 'TEST_PORT',
          services: [{ definition, implementation }],
          logger: createLogger(`replica-${name}`, 'silent'),
          isReady: async () => true,
        }),
      );
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.shutdown(0)));
  });

  it('no call fails: those sent as it sends GOAWAY go to the other replica, those it had received complete', async () => {
    const [old, other] = replicas as [RunningServer, RunningServer];
    const client = new AuthServiceClient(`ipv4:127.0.0.1:${old.port},127.0.0.1:${other.port}`, insecure(), CLIENT_OPTIONS);
    const who = () =>
      new Promise<string>((resolve, reject) =>
        client.getSigningKeys({}, new Metadata(), { deadline: Date.now() + 10_000 }, (err: ServiceError | null, value: SigningKeySet) => (err ? reject(err) : resolve(value.keys[0]!.kid))),
      );
    const outcomes: Array<Promise<string>> = [];
    const call = () => {
      const outcome = who();
      outcome.catch(() => undefined);
      outcomes.push(outcome);
      return outcome;
    };
    try {
      // Both connections up: the round-robin spreads calls over both replicas.
      await waitFor(async () => new Set(await Promise.all(Array.from({ length: 4 }, call))).size === 2, 10_000, 50);
      // Calls in flight on the old replica when its shutdown begins, and more in the same instant.
      const inFlight = Array.from({ length: BURST }, call);
      await waitFor(() => (received.get('old') ?? 0) >= BURST / 2, 10_000, 1);
      let stopping = true;
      const shutdown = old.shutdown(10_000).finally(() => (stopping = false));
      for (let i = 0; i < BURST; i++) call();
      // And steady calls until it has gone.
      while (stopping) {
        for (let i = 0; i < 4; i++) call();
        await new Promise((r) => setImmediate(r));
      }
      await shutdown;
      const settled = await Promise.allSettled(outcomes);
      const failed = settled.flatMap((s) => (s.status === 'rejected' ? [`${(s.reason as ServiceError).code} ${(s.reason as ServiceError).details}`] : []));
      expect(failed, `${failed.length} of ${settled.length} calls failed`).toEqual([]);
      const delivered = [...received.values()].reduce((a, b) => a + b, 0);
      expect(delivered, 'no call reached an application twice: only refused calls were sent again').toBe(settled.length);
      expect((await Promise.all(inFlight)).filter((name) => name === 'old').length, 'the calls it had received were answered by it').toBeGreaterThan(0);
    } finally {
      client.close();
    }
  }, 60_000);
});
