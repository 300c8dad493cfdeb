/**
 * Calls that ask the same question at the same time share one answer: the first starts the
 * work, the ones that arrive while it runs wait for it, and the next one after it settled
 * starts again (nothing is remembered past that). Its failure is every waiter's failure.
 */
export class SharedFlight<T> {
  private readonly running = new Map<string, Promise<T>>();

  run(key: string, work: () => Promise<T>): Promise<T> {
    const pending = this.running.get(key);
    if (pending) return pending;
    const started = work().finally(() => this.running.delete(key));
    this.running.set(key, started);
    return started;
  }
}
