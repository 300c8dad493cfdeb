import dns from 'node:dns';
import { makeGenericClientConstructor, Server, ServerCredentials, type ServiceDefinition, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_OPTIONS, insecure } from '../../lib/grpc/client.js';
import { DNS_REFRESH_OPTION } from '../../lib/grpc/dns-refresh.js';
import { freePort, waitFor } from '../support/redis-server.js';

/**
 * A replica added under a DNS name while clients are running gets their calls
 * (lib/grpc/dns-refresh.ts): two servers on one port of 127.0.0.1 and 127.0.0.2, a name whose
 * answer grows from the first to both (node's resolver, which grpc-js asks, answers for it here).
 */
const NAME = 'replicas.dns-refresh.test';
const text = { serialize: (v: string) => Buffer.from(v), deserialize: (b: Buffer) => b.toString() };
const definition: ServiceDefinition = {
  whoAmI: { path: '/test.Who/WhoAmI', requestStream: false, responseStream: false, requestSerialize: text.serialize, requestDeserialize: text.deserialize, responseSerialize: text.serialize, responseDeserialize: text.deserialize },
};
const WhoClient = makeGenericClientConstructor(definition, 'Who');

describe('DNS targets are resolved again while clients run', () => {
  const servers: Server[] = [];
  let port: number;
  let answer: string[] = ['127.0.0.1'];
  const lookup = dns.promises.lookup;

  beforeAll(async () => {
    port = await freePort();
    for (const host of ['127.0.0.1', '127.0.0.2']) {
      const server = new Server();
      server.addService(definition, { whoAmI: (_call: unknown, callback: (err: null, value: string) => void) => callback(null, host) });
      await new Promise<void>((resolve, reject) => server.bindAsync(`${host}:${port}`, ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
      servers.push(server);
    }
    const fake = (async (hostname: string, options: object) =>
      hostname === NAME ? answer.map((address) => ({ address, family: 4 })) : lookup(hostname, options as dns.LookupAllOptions)) as typeof lookup;
    dns.promises.lookup = fake;
  });

  afterAll(() => {
    dns.promises.lookup = lookup;
    for (const server of servers) server.forceShutdown();
  });

  it('a second address that appears under the name gets calls from a client already running', async () => {
    const client = new WhoClient(`dns:///${NAME}:${port}`, insecure(), { ...CLIENT_OPTIONS, [DNS_REFRESH_OPTION]: 200 });
    const who = () =>
      new Promise<string>((resolve, reject) =>
        client.makeUnaryRequest('/test.Who/WhoAmI', text.serialize, text.deserialize, 'who', { deadline: Date.now() + 5000 }, (err: ServiceError | null, value?: string) => (err ? reject(err) : resolve(value!))),
      );
    try {
      const before = await Promise.all(Array.from({ length: 10 }, who));
      expect(new Set(before)).toEqual(new Set(['127.0.0.1']));
      answer = ['127.0.0.1', '127.0.0.2'];
      await waitFor(async () => (await who()) === '127.0.0.2', 10_000, 20);
      const after = await Promise.all(Array.from({ length: 20 }, who));
      expect(new Set(after), 'round-robin over both').toEqual(new Set(['127.0.0.1', '127.0.0.2']));
    } finally {
      client.close();
    }
  });
});
