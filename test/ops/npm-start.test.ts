/**
 * `npm start` on a laptop (issue 13): it prints where everything is, logs JSON into a pipe and
 * readable lines on a terminal, and a SIGTERM to npm's own process stops the whole stack: no
 * process is left holding the ports.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Started {
  process: ChildProcess;
  output: () => string;
  dataDir: string;
}

const running: Started[] = [];

/** `command` in the repository with every port free-chosen and a fresh DATA_DIR, in its own process group. */
function start(command: string, args: string[]): Started {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'npm-start-'));
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', AUTH_GRPC_PORT: '0', TICKET_GRPC_PORT: '0', METRICS_PORT: '0', LOG_LEVEL: 'info' };
  for (const name of ['AUTH_DATABASE_URL', 'TICKET_DATABASE_URL', 'REDIS_URL', 'NODE_ENV']) delete env[name];
  const child = spawn(command, args, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const started = { process: child, output: () => output, dataDir };
  running.push(started);
  return started;
}

async function until(condition: () => boolean, what: string, ms = 90_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** True when something accepts connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

afterEach(() => {
  // Whatever is left of a started tree (a failing run), by its process group.
  for (const started of running.splice(0)) {
    try {
      process.kill(-started.process.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    rmSync(started.dataDir, { recursive: true, force: true });
  }
});

describe('npm start', () => {
  it('prints where the docs, APIs, gRPC and metrics are, logs JSON into a pipe, and stops entirely on SIGTERM to npm', async () => {
    const stack = start('npm', ['start']);
    await until(() => /Metrics\s+\S+/.test(stack.output()) && stack.output().includes('gateway listening'), 'the banner');
    const banner = stack.output();
    const gateway = Number(/Ticketing API\s+http:\/\/[^:\s]+:(\d+)/.exec(banner)?.[1]);
    const [, ticket, auth] = /gRPC\s+ticketing\.v1 on [^:\s]+:(\d+), auth\.v1 on [^:\s]+:(\d+)/.exec(banner) ?? [];
    const metrics = Number(/Metrics\s+http:\/\/[^:\s]+:(\d+)\/metrics/.exec(banner)?.[1]);
    const ports = [gateway, Number(ticket), Number(auth), metrics];
    expect(ports.every((port) => port > 0), banner).toBe(true);
    expect(banner).toContain(`http://localhost:${gateway}/docs`);
    expect(banner).toContain(`http://localhost:${gateway}/openapi.json`);
    expect(banner).toMatch(new RegExp(`Auth API\\s+http://localhost:${gateway}/auth`));
    const logLine = banner.split('\n').find((line) => line.includes('gateway listening'))!;
    expect(JSON.parse(logLine)).toMatchObject({ msg: 'gateway listening', port: gateway });
    for (const port of ports) expect(await listening(port), `port ${port} before`).toBe(true);

    const exited = new Promise<number | null>((resolve) => stack.process.once('exit', (code) => resolve(code)));
    stack.process.kill('SIGTERM'); // npm's own process only, as a supervisor or `kill <pid>` would
    expect(await exited).toBe(0);
    expect(stack.output()).toContain('shutdown complete');
    for (const port of ports) expect(await listening(port), `port ${port} after`).toBe(false);
  });

  it('logs readable lines when stdout is a terminal', async () => {
    // util-linux `script` gives the command a pseudo-terminal, as an interactive shell would.
    const stack = start('script', ['-qfec', 'npm start', '/dev/null']);
    await until(() => stack.output().includes('gateway listening'), 'the gateway log line');
    const line = stack.output().split('\n').find((text) => text.includes('gateway listening'))!;
    expect(line).toMatch(/INFO.*\(stack\): .*gateway listening/);
    expect(line.trimStart().startsWith('{')).toBe(false);
  });
});
