import { pino, type DestinationStream, type Logger } from 'pino';
import { scrubSecrets } from './log-scrub.js';

export type { Logger };
export { registerSecret, scrubSecrets } from './log-scrub.js';

/**
 * JSON logs. Secrets are kept out twice: known keys are redacted wherever they appear, and
 * every line is scrubbed as written (log-scrub.ts), so a token inside an error message or a
 * stack never reaches the log either.
 */
export function createLogger(name: string, level: string = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  const sink = destination ?? pino.destination(1);
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
  }, { write: (line: string) => sink.write(scrubSecrets(line)) });
}
