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
import { DeliveryStore, FAN_OUT_BATCH, type AttemptOutcome, type ClaimedDelivery } from './delivery-store.js';
import { retryAt } from './retry-schedule.js';
import { sendWebhook } from './sender.js';
import { EndpointLanes, type LaneTicket } from './endpoint-lanes.js';
import { formatTimestamp } from '../../lib/time.js';
import { beat } from './heartbeat.js';
import { startMetrics } from '../../lib/metrics-server.js';
import { webhookAttempts, webhookDeliveriesGivenUp } from '../../lib/metrics.js';

/** Deliveries claimed per round; each endpoint's are started in event order, several at once (endpoint-lanes.ts). */
const CLAIM_BATCH = 500;
/** A lease outlives the longest attempt (WEBHOOK_TIMEOUT_MS, DNS to answer) by this much. */
const LEASE_MARGIN_MS = 2000;
/** The rest of a queue's leases are renewed before a send when less than one attempt and this much is left. */
const RENEW_MARGIN_MS = 500;
/** How long sent events, deliveries and attempts are kept (GET .../deliveries shows the latest 100 anyway). */
const RETENTION_MS = 30 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

/**
 * MySQL connections of a worker's own pool: the fan-out, the claim, and the recording of the
 * endpoints' queues (one transaction at a time each) in short statements.
 */
const WORKER_POOL_MAX = 4;

/**
 * The worker's database. On MySQL always its own small pool, also inside `npm start`: sharing
 * the ticket service's pool, its fan-out would queue behind every stock move waiting on a hot
 * ticket's lock, and a rush would hold every event back until it ends. On SQLite inside
 * `npm start` the service's connection (`shared`): a second connection of the same process to
 * the same file would wait for the first's write lock synchronously, on the very thread the
 * first needs to finish.
 */
export function openWorkerDatabase(config: Config, logger: Logger, shared?: Knex): Knex {
  // Its own MySQL user when it has one (WEBHOOK_DATABASE_URL: the outbox tables only), else the ticket service's.
  const url = config.WEBHOOK_DATABASE_URL ?? config.TICKET_DATABASE_URL;
  return shared && !url ? shared : openTicketDatabase({ ...config, TICKET_DATABASE_URL: url }, logger, WORKER_POOL_MAX);
}

export type WorkerConfig = Pick<
  Config,
  'WEBHOOK_RETRY_SCHEDULE' | 'WEBHOOK_ALLOW_PRIVATE_TARGETS' | 'WEBHOOK_POLL_INTERVAL_MS' | 'WEBHOOK_TIMEOUT_MS' | 'WEBHOOK_CONCURRENCY_PER_ENDPOINT' | 'WEBHOOK_CONCURRENCY_PER_HOST'
>;

const errorCode = (err: unknown) => (err as { code?: string }).code ?? (err as Error).message;

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

/** `store`: a test's seam (a store whose recording it holds); the worker's own otherwise. */
export function startWebhookWorker(db: Knex, config: WorkerConfig, logger: Logger, onHealthyRound: () => void = () => undefined, store = new DeliveryStore(db)): RunningWorker {
  // One attempt's worth: sendWebhook's deadline for the lookup, the connection and the answer together.
  const attemptMs = config.WEBHOOK_TIMEOUT_MS;
  const leaseMs = attemptMs + LEASE_MARGIN_MS;
  const sendOptions = { timeoutMs: attemptMs, allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS };
  const lanes = new EndpointLanes({ perEndpoint: config.WEBHOOK_CONCURRENCY_PER_ENDPOINT, perHost: config.WEBHOOK_CONCURRENCY_PER_HOST, timeoutMs: attemptMs });
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  /**
   * One endpoint's claimed deliveries, started in event order, as many at once as its lane
   * lets through (endpoint-lanes.ts: its window, at most WEBHOOK_CONCURRENCY_PER_ENDPOINT,
   * and the host's share). Delivered ones are recorded in runs while the next ones are sent;
   * a failed one is recorded with its retry time, no more are started, and the rest of the
   * queue goes back unsent once those in flight have ended, so a dead receiver costs one
   * timeout per round, not one per event. Before each start the leases of the rest, and of
   * those sent but not recorded yet, are renewed when they could run out during a send, so a
   * long queue never outlives them; after the last start, those still waiting to be recorded
   * keep theirs renewed on the same terms until they are.
   */
  const busy = new Map<string, Promise<void>>();
  const sendQueue = async (deliveries: ClaimedDelivery[]) => {
    let leaseUntil = Date.now() + leaseMs;
    let run: Array<{ delivery: ClaimedDelivery; outcome: AttemptOutcome; at: Date }> = [];
    let recording: Promise<void> | undefined;
    /** Started, not recorded yet: their leases are renewed with the rest's. */
    const unrecorded = new Set<ClaimedDelivery>();
    const flush = () => {
      if (recording || run.length === 0) return;
      const items = run;
      run = [];
      recording = store
        .recordDelivered(items)
        .catch((err: unknown) => logger.warn({ err: errorCode(err) }, 'recording webhook deliveries failed; their leases run out and they go again'))
        .finally(() => {
          for (const { delivery } of items) unrecorded.delete(delivery);
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
    /** Renews the leases of those sent but not recorded whenever less than one attempt's deadline + RENEW_MARGIN_MS is left, until `settled`. */
    const keepUnrecordedLeased = async (settled: Promise<void>) => {
      for (;;) {
        let timer: NodeJS.Timeout | undefined;
        const due = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, leaseUntil - attemptMs - RENEW_MARGIN_MS - Date.now(), false)));
        const done = await Promise.race([settled.then(() => true), due]);
        clearTimeout(timer);
        if (done) return;
        const renewedAt = Date.now();
        await store.renew([...unrecorded], leaseMs).catch((err: unknown) => logger.warn({ err: errorCode(err) }, 'renewing webhook leases failed; those not recorded by then go again'));
        leaseUntil = renewedAt + leaseMs;
      }
    };
    const inFlight = new Set<Promise<void>>();
    let failed = false;
    const send = async (delivery: ClaimedDelivery, ticket: LaneTicket) => {
      let outcome: AttemptOutcome | undefined;
      try {
        outcome = await sendWebhook(
          { url: delivery.endpoint.url, secret: delivery.endpoint.secret, id: delivery.event.id, body: eventBody(delivery.event) },
          { ...sendOptions, agent: (protocol) => lanes.agent(delivery.endpoint.guid, protocol) },
        );
      } finally {
        lanes.finish(ticket, outcome ?? { delivered: false, durationMs: attemptMs });
      }
      const at = new Date();
      webhookAttempts.inc({ outcome: outcome.delivered ? 'delivered' : 'failed' });
      const attempt = { event: delivery.event.id, type: delivery.event.type, endpoint: delivery.endpoint.guid, status: outcome.responseStatus, delivered: outcome.delivered };
      if (outcome.delivered) {
        logger.debug(attempt, 'webhook attempt');
        run.push({ delivery, outcome, at });
        return flush();
      }
      failed = true;
      const next = retryAt(config.WEBHOOK_RETRY_SCHEDULE, delivery.attempts + 1, at);
      // A failed attempt is the operator's (and the tenant's) business: warn, with its reason, never the URL (it may carry a key).
      logger.warn({ ...attempt, attempt: delivery.attempts + 1, error: outcome.error, retryAt: next?.toISOString() ?? null }, next ? 'webhook delivery failed; it goes again' : 'webhook delivery failed for good');
      await store.record(delivery, outcome, next, at).finally(() => unrecorded.delete(delivery));
      if (!next) webhookDeliveriesGivenUp.inc();
    };
    let started = 0;
    let leaseLost = false;
    try {
      while (started < deliveries.length && !failed && !stopped) {
        const delivery = deliveries[started]!;
        if (delivery.endpoint.deleted) {
          await store.drop(delivery);
          started++;
          continue;
        }
        // Disabled since the claim: back unsent, left alone by the claims until it is enabled again.
        if (!delivery.endpoint.enabled) break;
        if (Date.now() + attemptMs + RENEW_MARGIN_MS > leaseUntil) {
          const rest = deliveries.slice(started);
          const renewedAt = Date.now();
          // Fewer renewed than held: the lease ran out (a stalled process) and another worker may have them now.
          if ((await store.renew(rest, leaseMs)) !== rest.length) {
            leaseLost = true;
            break;
          }
          await store.renew([...unrecorded], leaseMs);
          leaseUntil = renewedAt + leaseMs;
        }
        const ticket = lanes.tryStart(delivery.endpoint.guid, delivery.endpoint.url);
        if (!ticket) {
          await Promise.race(inFlight);
          continue;
        }
        started++;
        unrecorded.add(delivery);
        const sending = send(delivery, ticket)
          .catch((err: unknown) => {
            failed = true;
            logger.warn({ err: errorCode(err) }, 'recording a webhook attempt failed; its lease runs out and it goes again');
          })
          .finally(() => inFlight.delete(sending));
        inFlight.add(sending);
      }
    } finally {
      await keepUnrecordedLeased(Promise.all(inFlight).then(drain));
      if (!leaseLost) await store.release(deliveries.slice(started));
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
    lanes.prune();
    // One batch, then the claim: new events arriving all the time (a rush) never keep the claim waiting.
    const fanned = await store.fanOut(new Date());
    if (stopped) return false;
    // Endpoints with a queue running here are left out, so one slow receiver never holds up another.
    const claimed = await store.claim(new Date(), CLAIM_BATCH, leaseMs, [...busy.keys()]);
    const byEndpoint = new Map<string, ClaimedDelivery[]>();
    for (const delivery of claimed) byEndpoint.set(delivery.endpoint.guid, [...(byEndpoint.get(delivery.endpoint.guid) ?? []), delivery]);
    for (const [endpoint, deliveries] of byEndpoint) {
      const queue = sendQueue(deliveries)
        .catch((err: unknown) => logger.warn({ err: errorCode(err) }, 'webhook send failed; the lease will run out and it goes again'))
        .finally(() => {
          busy.delete(endpoint);
          run();
        });
      busy.set(endpoint, queue);
    }
    return claimed.length === CLAIM_BATCH || fanned === FAN_OUT_BATCH;
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
        logger.warn({ err: errorCode(err) }, 'webhook round failed; will retry');
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
      lanes.close();
    },
  };
}

async function main(): Promise<void> {
  const config = loadConfigOrExit('webhooks');
  const logger = createLogger('webhooks', config.LOG_LEVEL);
  const metrics = await startMetrics(config, logger);
  const db = openWorkerDatabase(config, logger);
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
