import { pino, type DestinationStream, type Logger } from 'pino';
import { isColorSupported, prettyFactory } from 'pino-pretty';
import { scrubSecrets } from './log-scrub.js';

export type { Logger };
export { registerSecret, scrubSecrets } from './log-scrub.js';

export interface LoggerOptions {
  /** One readable line per entry instead of JSON; by default when logging to stdout and it is a terminal. */
  pretty?: boolean;
}

/** Human-readable lines (pino-pretty) from the JSON lines, after they are scrubbed. */
function prettyLines(): (line: string) => string {
  const prettify = prettyFactory({ colorize: isColorSupported, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
  return (line) => prettify(line);
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
