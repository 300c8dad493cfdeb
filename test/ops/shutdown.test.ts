import { afterEach, describe, expect, it, vi } from 'vitest';
import { shutdownOnSignals } from '../../lib/process/shutdown.js';

/** The signal handling every process entrypoint uses (the processes themselves: topology.test.ts). */
describe('shutdownOnSignals', () => {
  const logger = { info: vi.fn(), error: vi.fn() };
  // A signal nothing else in the test process listens to; process.emit only calls the listeners.
  const signals: NodeJS.Signals[] = ['SIGUSR2'];
  let remove: (() => void) | undefined;

  afterEach(() => {
    remove?.();
    vi.useRealTimers();
  });

  it('calls shutdown(graceMs) once, then exits 0; later signals are ignored', async () => {
    const exit = vi.fn();
    let finish!: () => void;
    const shutdown = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    remove = shutdownOnSignals(shutdown, { logger, graceMs: 1234, signals, exit });
    process.emit('SIGUSR2', 'SIGUSR2');
    process.emit('SIGUSR2', 'SIGUSR2');
    expect(shutdown).toHaveBeenCalledTimes(1);
    expect(shutdown).toHaveBeenCalledWith(1234);
    expect(exit).not.toHaveBeenCalled();
    finish();
    await vi.waitFor(() => expect(exit).toHaveBeenCalledWith(0));
    expect(exit).toHaveBeenCalledTimes(1);
  });

  it('exits 1 when shutdown fails', async () => {
    const exit = vi.fn();
    remove = shutdownOnSignals(() => Promise.reject(new Error('pool would not close')), { logger, signals, exit });
    process.emit('SIGUSR2', 'SIGUSR2');
    await vi.waitFor(() => expect(exit).toHaveBeenCalledWith(1));
    expect(logger.error).toHaveBeenCalledWith({ err: 'pool would not close' }, 'shutdown failed');
  });

  it('exits 1 when shutdown has not finished 5 s after the grace period', () => {
    vi.useFakeTimers();
    const exit = vi.fn();
    remove = shutdownOnSignals(() => new Promise<void>(() => undefined), { logger, graceMs: 1000, signals, exit });
    process.emit('SIGUSR2', 'SIGUSR2');
    vi.advanceTimersByTime(5999);
    expect(exit).not.toHaveBeenCalled();
    vi.advanceTimersByTime(2);
    expect(exit).toHaveBeenCalledWith(1);
  });
});
