import { spawn } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import path from 'node:path';
import * as dnsPacket from 'dns-packet';
import { freePort, waitFor } from '../support/redis-server.js';
import { ROOT } from './compose-file.js';
import { RunningProcess } from './processes.js';

/**
 * The compose load balancer on this host: HAProxy (`haproxy` on PATH; .ci/run installs Debian's)
 * running deploy/compose/haproxy.cfg unchanged, with a DNS server of the test's own in place of
 * Docker's: it answers the gateways' name with whatever addresses the test sets, as Docker's DNS
 * answers `gateway` with every replica of `--scale gateway=N`.
 */
export const HAPROXY_CONFIG = path.join(ROOT, 'deploy/compose/haproxy.cfg');
export const GATEWAY_NAME = 'gateway.compose.test';

export interface LoadBalancer {
  baseUrl: string;
  adminUrl: string;
  process: RunningProcess;
  /** What DNS answers for GATEWAY_NAME from now on (one address per gateway replica). */
  setGateways(addresses: string[]): void;
  stop(): Promise<void>;
}

/** A DNS server on 127.0.0.1 that answers A queries for `name` with the current addresses, nothing else. */
async function fakeDns(name: string, initial: string[]): Promise<{ port: number; socket: Socket; set(addresses: string[]): void }> {
  let addresses = initial;
  const socket = createSocket('udp4');
  socket.on('message', (message, from) => {
    const query = dnsPacket.decode(message);
    const question = query.questions?.[0];
    const answers =
      question && question.name.toLowerCase() === name && question.type === 'A'
        ? addresses.map((data) => ({ type: 'A' as const, name: question.name, class: 'IN' as const, ttl: 1, data }))
        : [];
    const known = question?.name.toLowerCase() === name;
    const reply = dnsPacket.encode({
      type: 'response',
      id: query.id,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | (known ? 0 : 3), // rcode 3: NXDOMAIN for any other name
      questions: query.questions,
      answers,
    });
    socket.send(reply, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { port: socket.address().port, socket, set: (next) => (addresses = next) };
}

export async function startLoadBalancer(gatewayPort: number, gateways: string[]): Promise<LoadBalancer> {
  const dns = await fakeDns(GATEWAY_NAME, gateways);
  const [httpPort, adminPort] = [await freePort(), await freePort()];
  const env = {
    PATH: `${process.env.PATH ?? '/usr/bin:/bin'}:/usr/sbin:/sbin`,
    GATEWAYS: `${GATEWAY_NAME}:${gatewayPort}`,
    DNS_RESOLVER: `127.0.0.1:${dns.port}`,
    HTTP_BIND: `127.0.0.1:${httpPort}`,
    ADMIN_BIND: `127.0.0.1:${adminPort}`,
  };
  const child = spawn('haproxy', ['-W', '-db', '-f', HAPROXY_CONFIG], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const started = new Promise<void>((resolve, reject) => {
    child.once('error', (err) => reject(new Error(`cannot run haproxy (apt-get install haproxy): ${err.message}`)));
    child.once('spawn', resolve);
  });
  await started;
  const running = new RunningProcess('haproxy', child);
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  await waitFor(async () => {
    if (!running.running) throw new Error(`haproxy exited:\n${running.output.join('\n')}`);
    return (await fetch(`${adminUrl}/metrics`).catch(() => undefined))?.status === 200;
  }, 20_000, 100);
  return {
    baseUrl: `http://127.0.0.1:${httpPort}`,
    adminUrl,
    process: running,
    setGateways: dns.set,
    stop: async () => {
      if (running.running) {
        child.kill('SIGUSR1');
        const stopped = await Promise.race([running.exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 5000))]);
        if (!stopped) child.kill('SIGKILL');
      }
      dns.socket.close();
    },
  };
}
