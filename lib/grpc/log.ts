import { setLogger } from '@grpc/grpc-js';
import type { Logger } from '../logger.js';

/**
 * grpc-js logs to stderr by itself, values included (a metadata value it drops is printed
 * whole: a bearer token in `authorization`). Its lines go through our logger instead, and
 * so through the same scrubbing. grpc-js has one logger per process: the last call wins.
 */
export function routeGrpcLogs(logger: Logger): void {
  const write = (level: 'warn' | 'info' | 'debug') => (...args: unknown[]) => logger[level]({ source: 'grpc-js' }, args.map(String).join(' '));
  setLogger({ error: write('warn'), info: write('info'), debug: write('debug') });
}
