import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { registerSecret } from './log-scrub.js';
import type { Logger } from './logger.js';

/**
 * The configured secret, or a development one generated once into DATA_DIR (never in production:
 * config refuses). Generating it is said in the log (where it is, never what it is).
 */
export function signingSecret(configured: string | undefined, dataDir: string, logger?: Pick<Logger, 'info'>): string {
  if (configured) return configured;
  const file = path.join(dataDir, 'dev-jwt-secret');
  if (existsSync(file)) return registered(readFileSync(file, 'utf8').trim());
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  logger?.info({ file }, 'generated a development JWT signing key and kept it for the next starts (set AUTH_JWT_SECRET in production)');
  return registered(secret);
}

function registered(secret: string): string {
  registerSecret(secret);
  return secret;
}
