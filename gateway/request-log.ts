import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { REQUEST_MESSAGE, type Logger, type RequestLogEntry } from '../lib/logger.js';
import { httpDuration, httpRequests } from '../lib/metrics.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Remembers why a request is refused, for its log line. Only what the client is told goes here
 * (a problem's detail and field errors, an OAuth error): never a secret or an internal message.
 */
export function noteRefusal(res: Response, reason: string): void {
  res.locals.refusal = reason.length > MAX_REASON_LENGTH ? `${reason.slice(0, MAX_REASON_LENGTH)}...` : reason;
}

/** The most of a refusal's reason a log line carries (issue 32, item 7): a line stays small whatever the request. */
const MAX_REASON_LENGTH = 2000;

/**
 * Every request gets an id (a sane incoming X-Request-Id, or a new one), and when answered, its
 * metrics and one log entry: method, route, path, status, time, and the reason of a refusal.
 */
export function requestLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.get('x-request-id');
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const stopTimer = httpDuration.startTimer();
    res.on('finish', () => {
      // The route pattern, never the raw path, so GUIDs do not explode the label set.
      const route = req.route ? `${res.locals.routePrefix ?? ''}${String(req.route.path)}` : 'unmatched';
      const labels = { method: req.method, route, status: String(res.statusCode) };
      const seconds = stopTimer(labels);
      httpRequests.inc(labels);
      const entry: RequestLogEntry = { requestId, method: req.method, route, path: req.originalUrl.split('?')[0]!, status: res.statusCode, ms: Math.round(seconds * 1000) };
      if (res.statusCode >= 400 && typeof res.locals.refusal === 'string') entry.reason = res.locals.refusal;
      logger.info(entry, REQUEST_MESSAGE);
    });
    next();
  };
}
