/**
 * The webhook delivery worker (docs/webhooks.md): its own process in compose and Kubernetes
 * (`node dist/services/webhooks/worker.js`, or `node --import tsx services/webhooks/worker.ts`),
 * inside `npm start` on a laptop. Every state is in the ticket database, so any number of
 * workers may run, and a restarted one continues where the last left off.
 */
import type { Config } from '../../lib/config.js';
import type { Knex } from '../../lib/db.js';
import { createLogger, type Logger } from '../../lib/logger.js';
import { exitOnStartFailure, loadConfigOrExit } from '../../lib/process/entrypoint.js';
import { isMain } from '../../lib/process/is-main.js';
import { shutdownOnSignals } from '../../lib/process/shutdown.js';
import { openTicketDatabase } from '../ticket/server.js';
import { DeliveryStore, type AttemptOutcome, type ClaimedDelivery } from './delivery-store.js';
import { retryAt } from './retry-schedule.js';
import { sendWebhook } from './sender.js';
import { formatTimestamp } from '../../lib/time.js';
import { beat } from './heartbeat.js';
import { startMetrics } from '../../lib/metrics-server.js';
import { webhookAttempts, webhookDeliveriesGivenUp } from '../../lib/metrics.js';

/** Deliveries claimed per round; each endpoint's are sent one after another, in event order. */
const CLAIM_BATCH = 100;
/** A lease outlives the longest attempt (WEBHOOK_TIMEOUT_MS, DNS to answer) by this much. */
const LEASE_MARGIN_MS = 2000;
/** The rest of a queue's leases are renewed before a send when less than one attempt and this much is left. */
const RENEW_MARGIN_MS = 500;
/** How long sent events, deliveries and attempts are kept (GET .../deliveries shows the latest 100 anyway). */
const RETENTION_MS = 30 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

export type WorkerConfig = Pick<Config, 'WEBHOOK_RETRY_SCHEDULE' | 'WEBHOOK_ALLOW_PRIVATE_TARGETS' | 'WEBHOOK_POLL_INTERVAL_MS' | 'WEBHOOK_TIMEOUT_MS'>;

export interface RunningWorker {
  /** Look for work now (a writer in the same process just committed). */
  nudge(): void;
  stop(): Promise<void>;
}

/** The body of an event (PRODUCT.md 10): `sequence` rises with commit order for every object, to drop a stale event by. */
export function eventBody(event: ClaimedDelivery['event']): string {
  const { id, type, createdAt, companyId, sequence } = event;
  return JSON.stringify({ id, type, created_at: formatTimestamp(createdAt), company_id: companyId, sequence, data: JSON.parse(event.data) as unknown });
}

export function startWebhookWorker(db: Knex, config: WorkerConfig, logger: Logger, onHealthyRound: () => void = () => undefined): RunningWorker {
  const store = new DeliveryStore(db);
  // One attempt's worth: sendWebhook's deadline for the lookup, the connection and the answer together.
  const attemptMs = config.WEBHOOK_TIMEOUT_MS;
  const leaseMs = attemptMs + LEASE_MARGIN_MS;
  const sendOptions = { timeoutMs: attemptMs, allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS };
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  /**
   * One endpoint's claimed deliveries, one after another in event order. Delivered ones are
   * recorded in runs while the next ones are sent; a failed one is recorded (with its retry
   * time) after the runs before it, and the rest of the queue goes back unsent, so a dead
   * receiver costs one timeout per round, not one per event. The leases of the rest are
   * renewed before they could run out during a send, so a long queue never outlives them.
   */
  const busy = new Map<string, Promise<void>>();
  const sendQueue = async (deliveries: ClaimedDelivery[]) => {
    let leaseUntil = Date.now() + leaseMs;
    let run: Array<{ delivery: ClaimedDelivery; outcome: AttemptOutcome; at: Date }> = [];
    let recording: Promise<void> | undefined;
    const flush = () => {
      if (recording || run.length === 0) return;
      const items = run;
      run = [];
      recording = store
        .recordDelivered(items)
        .catch((err: unknown) => logger.warn({ err: (err as { code?: string }).code ?? (err as Error).message }, 'recording webhook deliveries failed; their leases run out and they go again'))
        .finally(() => {
          recording = undefined;
          flush();
        });
    };
    const drain = async () => {
      while (recording || run.length) {
        flush();
        await recording;
      }
    };
    try {
      for (let i = 0; i < deliveries.length; i++) {
        const delivery = deliveries[i]!;
        const rest = deliveries.slice(i);
        if (stopped) return await store.release(rest);
        if (Date.now() + attemptMs + RENEW_MARGIN_MS > leaseUntil) {
          const renewedAt = Date.now();
          // Fewer renewed than held: the lease ran out (a stalled process) and another worker may have them now.
          if ((await store.renew(rest, leaseMs)) !== rest.length) return;
          leaseUntil = renewedAt + leaseMs;
        }
        if (delivery.endpoint.deleted) {
          await store.drop(delivery);
          continue;
        }
        // Disabled since the claim: back unsent, left alone by the claims until it is enabled again.
        if (!delivery.endpoint.enabled) return await store.release(rest);
        const outcome = await sendWebhook({ url: delivery.endpoint.url, secret: delivery.endpoint.secret, id: delivery.event.id, body: eventBody(delivery.event) }, sendOptions);
        const at = new Date();
        webhookAttempts.inc({ outcome: outcome.delivered ? 'delivered' : 'failed' });
        logger.debug({ event: delivery.event.id, type: delivery.event.type, endpoint: delivery.endpoint.guid, status: outcome.responseStatus, delivered: outcome.delivered }, 'webhook attempt');
        if (outcome.delivered) {
          run.push({ delivery, outcome, at });
          flush();
          continue;
        }
        await drain();
        const next = retryAt(config.WEBHOOK_RETRY_SCHEDULE, delivery.attempts + 1, at);
        await store.record(delivery, outcome, next, at);
        if (!next) webhookDeliveriesGivenUp.inc();
        return await store.release(deliveries.slice(i + 1));
      }
    } finally {
      await drain();
    }
  };

  let prunedAt = 0;
  const pruneNowAndThen = async () => {
    if (Date.now() - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = Date.now();
    await store.prune(new Date(Date.now() - RETENTION_MS));
  };

  /** One round: fan out new events, then hand what is due to its endpoint's queue. True when there may be more. */
  const round = async (): Promise<boolean> => {
    await pruneNowAndThen();
    let fanned = 0;
    for (let batch; (batch = await store.fanOut(new Date())) > 0 && !stopped; ) fanned += batch;
    if (stopped) return false;
    // Endpoints with a queue running here are left out, so one slow receiver never holds up another.
    const claimed = await store.claim(new Date(), CLAIM_BATCH, leaseMs, [...busy.keys()]);
    const byEndpoint = new Map<string, ClaimedDelivery[]>();
    for (const delivery of claimed) byEndpoint.set(delivery.endpoint.guid, [...(byEndpoint.get(delivery.endpoint.guid) ?? []), delivery]);
    for (const [endpoint, deliveries] of byEndpoint) {
      const queue = sendQueue(deliveries)
        .catch((err: unknown) => logger.warn({ err: (err as { code?: string }).code ?? (err as Error).message }, 'webhook send failed; the lease will run out and it goes again'))
        .finally(() => {
          busy.delete(endpoint);
          run();
        });
      busy.set(endpoint, queue);
    }
    return claimed.length === CLAIM_BATCH || fanned > 0;
  };

  const run = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    clearTimeout(timer);
    running = (async () => {
      try {
        do again = false;
        while (((await round()) || again) && !stopped);
        onHealthyRound();
      } catch (err) {
        logger.warn({ err: (err as { code?: string }).code ?? (err as Error).message }, 'webhook round failed; will retry');
      } finally {
        running = undefined;
        if (!stopped) timer = setTimeout(run, config.WEBHOOK_POLL_INTERVAL_MS);
      }
    })();
  };
  run();

  return {
    nudge: run,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      // Sends in flight get a moment to be recorded; one cut short is sent again later (at least once).
      await Promise.race([Promise.all(busy.values()), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    },
  };
}

async function main(): Promise<void> {
  const config = loadConfigOrExit('webhooks');
  const logger = createLogger('webhooks', config.LOG_LEVEL);
  const metrics = await startMetrics(config, logger);
  const db = openTicketDatabase(config, logger);
  const worker = startWebhookWorker(db, config, logger, beat);
  logger.info({ pollMs: config.WEBHOOK_POLL_INTERVAL_MS }, 'webhook worker running');
  shutdownOnSignals(
    async () => {
      await worker.stop();
      await Promise.all([db.destroy(), metrics?.close()]);
    },
    { logger, graceMs: config.SHUTDOWN_GRACE_MS },
  );
}

if (isMain(import.meta.url)) main().catch(exitOnStartFailure('webhook worker'));
