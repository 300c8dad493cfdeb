/** MySQL may pick a transaction as a deadlock victim; it is rolled back whole and can simply run again. */
export function isDeadlock(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT';
}

export async function retryingDeadlocks<T>(work: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= attempts || !isDeadlock(err)) throw err;
    }
  }
}
