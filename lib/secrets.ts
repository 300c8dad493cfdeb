import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './config.js';
import { registerSecret } from './log-scrub.js';
import type { Logger } from './logger.js';

export interface KeptSecret {
  /** The setting that gives it (named in the error when production lacks it). */
  name: string;
  /** Its file in DATA_DIR when generated. */
  file: string;
  generate: () => string;
}

/**
 * The configured value, or a development one generated once into DATA_DIR (mode 0600) and kept
 * there; never in production, where the setting is required.
 */
export function configuredOrKept(
  configured: string | undefined,
  secret: KeptSecret,
  config: { DATA_DIR: string; NODE_ENV: string },
  logger?: Pick<Logger, 'info'>,
): string {
  if (configured) return registered(configured);
  if (config.NODE_ENV === 'production') throw new ConfigError([`${secret.name}: required when NODE_ENV=production (nothing is generated in production)`]);
  const file = path.join(config.DATA_DIR, secret.file);
  if (existsSync(file)) return registered(readFileSync(file, 'utf8').trim());
  mkdirSync(config.DATA_DIR, { recursive: true });
  const value = secret.generate();
  writeFileSync(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
  // Where it is, never what it is.
  logger?.info({ file }, `generated a development ${secret.name} and kept it for the next starts (set ${secret.name} in production)`);
  return registered(value);
}

/** 48 random bytes, base64url: a generated shared secret. */
export function randomSecret(): string {
  return randomBytes(48).toString('base64url');
}

function registered(secret: string): string {
  registerSecret(secret);
  return secret;
}
