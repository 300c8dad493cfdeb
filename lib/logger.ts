import { pino, type DestinationStream, type Logger } from 'pino';
import { isColorSupported, prettyFactory } from 'pino-pretty';
import { scrubSecrets } from './log-scrub.js';

export type { Logger };
export { registerSecret, scrubSecrets } from './log-scrub.js';

export interface LoggerOptions {
  /** One readable line per entry instead of JSON; by default when logging to stdout and it is a terminal. */
  pretty?: boolean;
}

/** The message of the gateway's one entry per answered request. */
export const REQUEST_MESSAGE = 'request';

/** The fields of that entry (JSON mode writes them as they are). */
export interface RequestLogEntry {
  requestId: string;
  method: string;
  /** The route pattern (e.g. `/ticket/:guid`), as the metrics label it. */
  route: string;
  /** The path asked for, without its query string. */
  path: string;
  status: number;
  ms: number;
  /** Why the request was refused (4xx, 5xx): what the client was told, never a secret. */
  reason?: string;
}

/** A request entry as a person reads it: `POST /event 422 in 3 ms: The request has invalid fields. (name: must be 1 to 255 characters)`. */
function requestSummary(entry: RequestLogEntry): string {
  return `${entry.method} ${entry.path ?? entry.route} ${entry.status} in ${entry.ms} ms${entry.reason ? `: ${entry.reason}` : ''}`;
}

type Entry = Partial<RequestLogEntry> & { msg?: string; level: number; time: number; name?: string };

/** A JSON log line as an object; undefined for anything else (pino-pretty then shows it as it is). */
function parsed(line: string): Entry | undefined {
  try {
    return JSON.parse(line) as Entry;
  } catch {
    return undefined;
  }
}

/**
 * Human-readable lines (pino-pretty) from the JSON lines, after they are scrubbed: one line per
 * entry, its fields inline (an error's stack below it); an answered request is its summary alone.
 */
export function prettyLines(): (line: string) => string {
  const prettify = prettyFactory({ colorize: isColorSupported, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true });
  return (line) => {
    const entry = parsed(line);
    if (entry?.msg !== REQUEST_MESSAGE || entry.status === undefined) return prettify(line);
    return prettify(JSON.stringify({ level: entry.level, time: entry.time, name: entry.name, msg: requestSummary(entry as RequestLogEntry) }));
  };
}

/**
 * JSON logs, or readable lines on a terminal. Secrets are kept out twice: known keys are
 * redacted wherever they appear, and every line is scrubbed as written (log-scrub.ts), so a
 * token inside an error message or a stack never reaches the log either; the readable form is
 * made from the scrubbed line.
 */
export function createLogger(
  name: string,
  level: string = process.env.LOG_LEVEL ?? 'info',
  destination?: DestinationStream,
  options: LoggerOptions = {},
): Logger {
  // Synchronous: an asynchronous write goes through libuv's thread pool and waits behind scrypt
  // there (a password grant), so log lines came out seconds late under a burst of logins.
  const sink = destination ?? pino.destination({ dest: 1, sync: true });
  const format = (options.pretty ?? (destination === undefined && process.stdout.isTTY === true)) ? prettyLines() : (line: string) => line;
  return pino({
    name,
    level,
    redact: {
      paths: [
        'password',
        '*.password',
        'client_secret',
        '*.client_secret',
        'refresh_token',
        '*.refresh_token',
        'access_token',
        '*.access_token',
        'token',
        '*.token',
        'authorization',
        '*.authorization',
        'headers.authorization',
        'req.headers.authorization',
        'req.headers.cookie',
        'secret',
        '*.secret',
      ],
      censor: '[redacted]',
    },
  }, { write: (line: string) => sink.write(format(scrubSecrets(line))) });
}
