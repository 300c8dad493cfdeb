import type { ClientReadableStream } from '@grpc/grpc-js';
import type { Response } from 'express';

/**
 * Characters gathered before one write to the response: one chunk (and one socket write)
 * per many items instead of per item; items that trickle in are still sent at the next
 * turn of the event loop.
 */
const CHUNK_CHARS = 64 * 1024;

/**
 * Writes a JSON array item by item, honouring the response's backpressure, so that a list
 * of any length passes through in constant memory.
 */
export class JsonArrayWriter {
  private count = 0;
  private closed = false;
  private ended = false;
  private pending = '';
  private flushScheduled = false;

  constructor(private readonly res: Response) {
    res.once('close', () => {
      this.closed = true;
    });
  }

  get started(): boolean {
    return this.res.headersSent;
  }

  start(): void {
    this.res.status(200).type('application/json');
    this.res.write('[');
  }

  /** Writes one item; false when the response wants a pause (wait for 'drain'). */
  writeNow(item: unknown): boolean {
    this.pending += `${this.count++ === 0 ? '' : ','}${JSON.stringify(item)}`;
    if (this.pending.length >= CHUNK_CHARS) return this.flush();
    this.scheduleFlush();
    return true;
  }

  /** Writes one item and waits while the client is slow; false once the client has gone. */
  async write(item: unknown): Promise<boolean> {
    if (this.closed) return false;
    if (!this.writeNow(item)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.res.off('drain', done);
          this.res.off('close', done);
          resolve();
        };
        this.res.on('drain', done);
        this.res.on('close', done);
      });
    }
    return !this.closed;
  }

  end(): void {
    if (!this.started) this.start();
    this.ended = true;
    this.res.end(`${this.pending}]`);
    this.pending = '';
  }

  private flush(): boolean {
    const chunk = this.pending;
    this.pending = '';
    return this.closed || this.res.write(chunk);
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      if (this.pending && !this.ended && !this.closed) this.flush();
    });
  }
}

/**
 * Writes a list that a service serves page by page as one JSON array, each page as it
 * arrives. `next` gives the call for the page after `page`, or undefined at the end. Once
 * the headers are out, a failing page can only cut the response off (a broken body, never a
 * truncated list that looks complete).
 */
export async function writePages<P>(res: Response, first: P, items: (page: P) => unknown[], next: (page: P) => Promise<P> | undefined): Promise<void> {
  let page = first;
  const writer = new JsonArrayWriter(res);
  writer.start();
  for (;;) {
    for (const item of items(page)) if (!(await writer.write(item))) return;
    const pending = next(page);
    if (!pending) break;
    try {
      page = await pending;
    } catch {
      res.destroy();
      return;
    }
  }
  writer.end();
}

/** How a piped stream ended: fully written, cut off by a backend error, or abandoned by the client. */
export type PipeOutcome = 'complete' | 'failed' | 'client-gone';

/**
 * Pipes a server stream into a JSON array; each message gives the items `toJsonItems` makes of
 * it (a batch of several). Nothing is sent before the first message (or the end), so an error
 * the stream opens with (NOT_FOUND, UNAUTHENTICATED, ...) still becomes a proper problem
 * response: the promise rejects with it. An error after the first message can only cut the
 * response off, so the response is destroyed and the client sees a broken body, never a
 * truncated list that looks complete.
 */
export function pipeJsonArray<M>(res: Response, source: ClientReadableStream<M>, toJsonItems: (message: M) => unknown[]): Promise<PipeOutcome> {
  const writer = new JsonArrayWriter(res);
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (then: () => void) => {
      if (settled) return;
      settled = true;
      then();
    };
    source.on('data', (message: M) => {
      if (!writer.started) writer.start();
      let ready = true;
      for (const item of toJsonItems(message)) ready = writer.writeNow(item) && ready;
      if (!ready) {
        source.pause();
        res.once('drain', () => source.resume());
      }
    });
    source.on('error', (err) =>
      settle(() => {
        if (!writer.started) return reject(err);
        res.destroy();
        resolve('failed');
      }),
    );
    source.on('end', () =>
      settle(() => {
        writer.end();
        resolve('complete');
      }),
    );
    res.once('close', () =>
      settle(() => {
        source.cancel();
        resolve('client-gone');
      }),
    );
  });
}
