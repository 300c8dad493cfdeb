import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { resolveTarget, TargetRefused } from '../../lib/webhooks/targets.js';
import type { AttemptOutcome } from './delivery-store.js';

/** Of a receiver's answer, at most this much is read (and nothing of it kept). */
const RESPONSE_CAP_BYTES = 16 * 1024;

export interface Outgoing {
  url: string;
  secret: string;
  /** The event id: the webhook-id header, the same on every attempt. */
  id: string;
  body: string;
}

export interface SendOptions {
  /** The whole attempt's deadline: DNS lookup, connection and answer together, counted from this call. */
  timeoutMs: number;
  allowPrivateTargets: boolean;
  /**
   * The connection pool to send through (the worker gives each endpoint its own, never
   * smaller than the sends it lets run at once, so an attempt never waits for a socket);
   * none: a connection of its own. A kept connection goes to an address that was checked
   * when it was opened.
   */
  agent?: (protocol: 'http:' | 'https:') => http.Agent;
}

/**
 * One attempt: POSTs the body signed as the Standard Webhooks specification says (the
 * `standardwebhooks` package signs), to the address checked after DNS (the connection goes
 * to that address, never to a second lookup), without following redirects, within the
 * timeout (one deadline for the lookup, the connection and the answer, so the worker's lease
 * covers a whole attempt), reading at most a small part of the answer. A 2xx is a delivery.
 */
export async function sendWebhook(outgoing: Outgoing, options: SendOptions): Promise<AttemptOutcome> {
  const started = performance.now();
  const outcome = (delivered: boolean, responseStatus: number | null, error: string | null): AttemptOutcome => ({
    delivered,
    responseStatus,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  let target;
  try {
    target = await resolveTarget(outgoing.url, options.allowPrivateTargets, options.timeoutMs);
  } catch (err) {
    return outcome(false, null, err instanceof TargetRefused ? `refused: ${err.message}` : 'DNS lookup failed');
  }
  const timestamp = new Date();
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'ticketing-webhooks/1',
    'webhook-id': outgoing.id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': new Webhook(outgoing.secret).sign(outgoing.id, timestamp, outgoing.body),
  };
  const pinned: LookupFunction = (_host, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const transport = target.url.protocol === 'https:' ? https : http;
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const settle = (result: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = transport.request(target.url, { method: 'POST', headers, lookup: pinned, agent: options.agent?.(target.url.protocol as 'http:' | 'https:') ?? false }, (response) => {
      const status = response.statusCode ?? 0;
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > RESPONSE_CAP_BYTES) response.destroy();
      });
      const done = () => settle(outcome(status >= 200 && status < 300, status, status >= 200 && status < 300 ? null : `HTTP ${status}`));
      response.on('end', done);
      response.on('close', done);
      response.on('error', done);
    });
    // At the deadline, an answer that already came but was not read yet (this process was
    // busy: timers run before I/O in a turn of the event loop) is read first, one turn later.
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (settled) return;
          request.destroy();
          settle(outcome(false, null, `no answer within ${options.timeoutMs} ms`));
        }),
      Math.max(0, options.timeoutMs - (performance.now() - started)),
    );
    request.on('error', (err: NodeJS.ErrnoException) => settle(outcome(false, null, `connection failed: ${err.code ?? 'error'}`)));
    request.end(outgoing.body);
  });
}
