import type { Logger } from '../logger.js';

/** How long a process lets work in flight finish after SIGTERM, unless told otherwise (SHUTDOWN_GRACE_MS). */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;
/** How long past the grace period a shutdown that has not finished may run before the process exits anyway. */
export const SHUTDOWN_OVERRUN_MS = 5000;

export interface ShutdownOnSignalsOptions {
  logger: Pick<Logger, 'info' | 'error'>;
  graceMs?: number;
  signals?: NodeJS.Signals[];
  /** Replaced in tests; process.exit otherwise. */
  exit?: (code: number) => void;
}

/**
 * On the first SIGTERM or SIGINT: `shutdown(graceMs)` (stop taking new work, finish what is
 * in flight, close pools), then exit 0; exit 1 when it throws or has not finished 5 s after
 * the grace period. Further signals while stopping are logged and ignored, so a second
 * SIGTERM cannot cut the work in flight short. Returns a function that removes the handlers.
 */
export function shutdownOnSignals(shutdown: (graceMs: number) => Promise<void>, options: ShutdownOnSignalsOptions): () => void {
  const { logger, graceMs = DEFAULT_SHUTDOWN_GRACE_MS, signals = ['SIGTERM', 'SIGINT'], exit = (code: number) => process.exit(code) } = options;
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.info({ signal }, 'already shutting down');
      return;
    }
    stopping = true;
    logger.info({ signal, graceMs }, 'shutting down: finishing work in flight');
    const overrun = setTimeout(() => {
      logger.error({ graceMs }, 'shutdown did not finish in time; exiting');
      exit(1);
    }, graceMs + SHUTDOWN_OVERRUN_MS);
    overrun.unref();
    shutdown(graceMs).then(
      () => {
        clearTimeout(overrun);
        logger.info('shutdown complete');
        exit(0);
      },
      (err: unknown) => {
        clearTimeout(overrun);
        logger.error({ err: err instanceof Error ? err.message : String(err) }, 'shutdown failed');
        exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
}
