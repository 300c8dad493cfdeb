/**
 * Issue 32, item 12: the gateway sheds new sales only when it is overloaded by its own work,
 * not because the host is busy. The stack runs in this process, so:
 * - the host busy: a shell beside it stops this process for 300 ms out of every 350 ms
 *   (SIGSTOP/SIGCONT, as a scheduler gives the CPU to other programs). The loop then runs
 *   hundreds of milliseconds late while it mostly waits; a lone reservation is served (201).
 *   Before, it was refused 503 server_busy.
 * - its own work: the loop held by this process's own code (as a flood of requests holds it);
 *   a new reservation is refused 503 server_busy, reads beside it are served.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { EventLoopLag } from '../../lib/event-loop-lag.js';
import { suiteOfFile } from '../support/suite.js';
import { newTicket, reserve, startStockSuite } from '../support/stock.js';
import { readTicket } from '../support/api.js';

const LAG_MS = 200;

/**
 * Stops and continues this process, 300 ms stopped out of every 350, until `stop()` (which
 * leaves it running) or at most 60 rounds. The shell always ends with a SIGCONT.
 */
function hostBusy(): { stop(): Promise<void> } {
  const dir = mkdtempSync(path.join(tmpdir(), 'host-busy-'));
  const flag = path.join(dir, 'stop');
  const pid = process.pid;
  const script = `i=0; while [ ! -e '${flag}' ] && [ $i -lt 60 ]; do kill -STOP ${pid}; sleep 0.3; kill -CONT ${pid}; sleep 0.05; i=$((i+1)); done; kill -CONT ${pid}`;
  const shell = spawn('sh', ['-c', script], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => shell.once('exit', () => resolve()));
  return {
    async stop() {
      writeFileSync(flag, '');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('shedding new sales', () => {
  const suite = suiteOfFile(() => startStockSuite({ SHED_NEW_SALES_LAG_MS: String(LAG_MS) }));

  it('a host busy with other programs: the loop runs late, and a lone buyer is served', async () => {
    const { who } = suite;
    const { guid } = await newTicket(who, { available_stock: 10 });
    const lag = new EventLoopLag();
    const busy = hostBusy();
    try {
      // The loop runs late (the condition that used to shed) while it mostly waits. A second and
      // a half of it, so the setup's own work (sign-up, the ticket) is out of the last second.
      const started = Date.now();
      let late = 0;
      for (let i = 0; i < 80 && (late < LAG_MS || Date.now() - started < 1500); i++) {
        await sleep(50);
        late = lag.ms();
      }
      expect(late).toBeGreaterThanOrEqual(LAG_MS);
      const reservation = await reserve(who, guid, { amount: 1 });
      expect(reservation.status, reservation.text).toBe(201);
    } finally {
      await busy.stop();
      lag.stop();
    }
  }, 60_000);

  it('its own work holding the loop: a new sale is refused 503 server_busy, reads go through', async () => {
    const { who } = suite;
    const { guid } = await newTicket(who, { available_stock: 10 });
    const until = performance.now() + 3 * LAG_MS;
    while (performance.now() < until);
    const [reservation, ...reads] = await Promise.all([reserve(who, guid, { amount: 1 }), ...Array.from({ length: 4 }, () => readTicket(who, guid))]);
    expect(reservation.status, reservation.text).toBe(503);
    expect(reservation.body.code).toBe('server_busy');
    for (const read of reads) expect(read.available_stock).toBe(10);
  });
});
