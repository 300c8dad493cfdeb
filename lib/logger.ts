import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** JSON logs; anything that could hold a secret is redacted wherever it appears. */
export function createLogger(name: string, level: string = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
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
  }, destination);
}
