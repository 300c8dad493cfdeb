import { systemClock, type Clock } from '../../../lib/clock.js';
import type { Logger } from '../../../lib/logger.js';
import type { ReservationStore } from '../store/reservation-store.js';
import type { StockEngine } from './stock-engine.js';
import { retryingDeadlocks } from '../store/deadlocks.js';

/** Tickets settled per run; the next run takes the rest. */
const BATCH = 200;

/**
 * Persists expiries in the background, so that the counters in the database are right for
 * anyone reading them directly. Not needed for correctness: every move and every read of a
 * ticket expires its due reservations first (docs/stock-moves.md).
 */
export function startExpirySweeper(store: ReservationStore, engine: StockEngine, intervalMs: number, logger: Logger, clock: Clock = systemClock): { stop(): void } {
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      const due = await store.anyTicketsWithDue(clock.now(), BATCH);
      let expired = 0;
      for (const ticketGuid of due) expired += (await retryingDeadlocks(() => engine.settle(ticketGuid))) ? 1 : 0;
      if (expired) logger.debug({ tickets: expired }, 'expired reservations swept');
    } catch (err) {
      logger.warn({ err: (err as { code?: string }).code ?? 'error' }, 'expiry sweep failed; will retry');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void run(), intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
