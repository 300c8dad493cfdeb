import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { registerSecret } from './log-scrub.js';

/** The configured secret, or a development one generated once into DATA_DIR (never in production: config refuses). */
export function signingSecret(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  const file = path.join(dataDir, 'dev-jwt-secret');
  if (existsSync(file)) return registered(readFileSync(file, 'utf8').trim());
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  return registered(secret);
}

function registered(secret: string): string {
  registerSecret(secret);
  return secret;
}
