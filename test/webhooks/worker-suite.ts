/**
 * The suite of a webhook test file whose workers run in the test's own process (the stack runs
 * none): endpoints on local receivers are accepted at creation, and the workers and receivers
 * a test starts are stopped after that test, the workers first.
 */
import { afterEach } from 'vitest';
import { loadConfig } from '../../lib/config.js';
import type { Knex } from '../../lib/db.js';
import { createLogger } from '../../lib/logger.js';
import type { DeliveryStore } from '../../services/webhooks/delivery-store.js';
import { startWebhookWorker, type RunningWorker, type WorkerConfig } from '../../services/webhooks/worker.js';
import { ticketDatabase } from '../support/stock.js';
import type { TestStack } from '../support/stack.js';
import { startSuite, suiteOfFile } from '../support/suite.js';
import { startReceiver, type TestReceiver } from './receiver.js';

export interface WorkerOptions {
  /** Settings over the stack's own, e.g. WEBHOOK_ALLOW_PRIVATE_TARGETS as a worker decides at delivery. */
  config?: Partial<WorkerConfig>;
  /** Called after each of the worker's rounds that ended without an error. */
  onHealthyRound?: () => void;
  /** The store the worker records its attempts in (a stand-in that holds them back, say). */
  store?: DeliveryStore;
}

export interface WorkerSuite {
  stack: TestStack;
  /** The ticket database the workers read and write. */
  db: Knex;
  /** A worker in this process on the suite's stack, logging nothing; stopped after the test. */
  startWorker(options?: WorkerOptions): RunningWorker;
  /** A local receiver; closed after the test. */
  startReceiver(): Promise<TestReceiver>;
  stop(): Promise<void>;
}

/** What a test started, stopped after it. */
interface Started {
  workers: RunningWorker[];
  receivers: TestReceiver[];
}

async function startWorkerSuite(env: Record<string, string>, started: Started): Promise<WorkerSuite> {
  const { stack } = await startSuite({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_WORKER_IN_STACK: 'false', ...env } });
  const db = ticketDatabase(stack);
  return {
    stack,
    db,
    startWorker(options = {}) {
      const config = { ...loadConfig(stack.env), ...options.config };
      const worker = startWebhookWorker(db, config, createLogger('webhooks', 'silent'), options.onHealthyRound, options.store);
      started.workers.push(worker);
      return worker;
    },
    async startReceiver() {
      const receiver = await startReceiver();
      started.receivers.push(receiver);
      return receiver;
    },
    async stop() {
      await db.destroy();
      await stack.stop();
    },
  };
}

/** The worker suite of one test file, with the stack's settings `env` besides (suiteOfFile: read its fields inside a test). */
export function workerSuiteOfFile(env: Record<string, string> = {}): WorkerSuite {
  const started: Started = { workers: [], receivers: [] };
  afterEach(async () => {
    for (const worker of started.workers.splice(0)) await worker.stop();
    for (const receiver of started.receivers.splice(0)) await receiver.close();
  });
  return suiteOfFile(() => startWorkerSuite(env, started));
}
