import { AsyncLocalStorage } from 'node:async_hooks';

const deadlines = new AsyncLocalStorage<number>();

/** Runs a call's handler knowing the call's deadline (grpc-js: a Date, or Infinity for none). */
export function withCallDeadline<T>(deadline: Date | number, handle: () => Promise<T>): Promise<T> {
  return deadlines.run(deadline instanceof Date ? deadline.getTime() : deadline, handle);
}

/** The deadline (ms since the epoch) of the call being handled; Infinity outside a call or without one. */
export function callDeadline(): number {
  return deadlines.getStore() ?? Infinity;
}
