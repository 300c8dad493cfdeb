import { describe, expect, it } from 'vitest';
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { ConfigError, loadConfig } from '../lib/config.js';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { configuredOrKept } from '../lib/secrets.js';
import { generatePrivateKey, parsePrivateKey } from '../lib/tokens/keys.js';

describe('configuration', () => {
  it('has working defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ PORT: 8080, AUTH_GRPC_PORT: 50052, TICKET_GRPC_PORT: 50051, DATA_DIR: './data', AUTH_PATH_PREFIX: '/auth' });
    expect(config.authGrpcAddress).toBe('127.0.0.1:50052');
    expect(config.ticketGrpcAddress).toBe('127.0.0.1:50051');
    expect(config.AUTH_DATABASE_URL).toBeUndefined();
    expect(config.REDIS_URL).toBeUndefined();
  });

  it('names every bad value with a clear message', () => {
    try {
      loadConfig({ PORT: 'eighty', AUTH_DATABASE_URL: 'postgres://x/y', REDIS_URL: 'localhost:6379', AUTH_JWT_SECRET: 'short' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const message = (err as Error).message;
      for (const name of ['PORT', 'AUTH_DATABASE_URL', 'REDIS_URL', 'AUTH_JWT_SECRET']) expect(message).toContain(name);
      expect(message).toContain('mysql://user:pass@host:port/database');
    }
  });

  it('DEFAULT_CURRENCY: EUR unless set; a currency the table lacks stops the start with its name', () => {
    expect(loadConfig({}).DEFAULT_CURRENCY).toBe('EUR');
    expect(loadConfig({ DEFAULT_CURRENCY: 'JPY' }).DEFAULT_CURRENCY).toBe('JPY');
    for (const value of ['BHD', 'eur', 'EURO']) expect(() => loadConfig({ DEFAULT_CURRENCY: value }), value).toThrow(/DEFAULT_CURRENCY: must be an ISO 4217 code/);
  });

  it('never shows a secret or the credentials of a URL in its message', () => {
    try {
      loadConfig({ AUTH_JWT_SECRET: 'hunter2-too-short', AUTH_DATABASE_URL: 'mysql://root:p@ss/word@db', REDIS_URL: 'http://user:pw@redis' });
      expect.unreachable();
    } catch (err) {
      const message = (err as Error).message;
      expect(message).toContain('AUTH_JWT_SECRET');
      expect(message).toContain('AUTH_DATABASE_URL');
      for (const secret of ['hunter2', 'p@ss', 'ss/word', 'root', 'pw@']) expect(message).not.toContain(secret);
    }
  });

  it('asks each process in production only for the secrets it uses: the signing key and the rate-limit secret of the auth service alone', () => {
    for (const processName of ['gateway', 'ticket', 'webhooks', 'migrate', 'healthcheck', 'cli'] as const) {
      expect(() => loadConfig({ NODE_ENV: 'production' }, processName), processName).not.toThrow();
    }
    for (const processName of ['auth', 'stack'] as const) {
      expect(() => loadConfig({ NODE_ENV: 'production' }, processName), processName).toThrow(/AUTH_SIGNING_KEY: required by the .* process when NODE_ENV=production[\s\S]*AUTH_RATE_LIMIT_SECRET: required/);
      const keys = { NODE_ENV: 'production', AUTH_SIGNING_KEY: generatePrivateKey() };
      expect(() => loadConfig({ ...keys, AUTH_RATE_LIMIT_SECRET: 'r'.repeat(32) }, processName)).not.toThrow();
      // An install from before signing keys: its AUTH_JWT_SECRET stands in for the rate-limit secret.
      expect(() => loadConfig({ ...keys, AUTH_JWT_SECRET: 'x'.repeat(32) }, processName)).not.toThrow();
    }
  });

  it('checks the keys: an EC P-256 private key to sign, public (or private) keys to accept, in PEM or base64 DER, never shown', () => {
    const key = generatePrivateKey();
    const pem = createPrivateKey({ key: Buffer.from(key, 'base64'), format: 'der', type: 'pkcs8' }).export({ type: 'pkcs8', format: 'pem' }).toString();
    const publicPem = createPublicKey(pem).export({ type: 'spki', format: 'pem' }).toString();
    expect(loadConfig({ AUTH_SIGNING_KEY: pem }).AUTH_SIGNING_KEY).toBe(pem);
    expect(loadConfig({ AUTH_SIGNING_KEY: pem.replace(/\n/g, '\\n') }).AUTH_SIGNING_KEY).toBeDefined();
    expect(loadConfig({ AUTH_ACCEPTED_KEYS: `${publicPem}${publicPem}` }).AUTH_ACCEPTED_KEYS).toBeDefined();
    expect(loadConfig({ AUTH_ACCEPTED_KEYS: `${key}, ${generatePrivateKey()}` }).AUTH_ACCEPTED_KEYS).toBeDefined();
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64');
    for (const [name, value, message] of [
      ['AUTH_SIGNING_KEY', 'not-a-key', /AUTH_SIGNING_KEY: must be an EC P-256 private key/],
      ['AUTH_SIGNING_KEY', rsa, /AUTH_SIGNING_KEY: must be an EC P-256 private key \(ES256\)/],
      ['AUTH_SIGNING_KEY', publicPem, /AUTH_SIGNING_KEY: must be an EC P-256 private key/],
      ['AUTH_ACCEPTED_KEYS', `${key},garbage`, /AUTH_ACCEPTED_KEYS: key 2: must be an EC P-256 public/],
    ] as const) {
      try {
        loadConfig({ [name]: value });
        expect.unreachable(name);
      } catch (err) {
        expect((err as Error).message).toMatch(message);
        expect((err as Error).message).not.toContain(value.slice(0, 20));
      }
    }
  });

  it('outside production a development key is generated once into DATA_DIR (mode 0600) and kept; production generates nothing', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'ticketing-keys-'));
    try {
      const secret = { name: 'AUTH_SIGNING_KEY', file: 'dev-signing-key', generate: generatePrivateKey };
      const first = configuredOrKept(undefined, secret, { DATA_DIR: dataDir, NODE_ENV: 'development' });
      expect(parsePrivateKey(first).asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
      expect(statSync(path.join(dataDir, 'dev-signing-key')).mode & 0o777).toBe(0o600);
      expect(configuredOrKept(undefined, secret, { DATA_DIR: dataDir, NODE_ENV: 'development' }), 'kept across restarts').toBe(first);
      expect(configuredOrKept('given', secret, { DATA_DIR: dataDir, NODE_ENV: 'production' })).toBe('given');
      expect(() => configuredOrKept(undefined, secret, { DATA_DIR: dataDir, NODE_ENV: 'production' })).toThrow(/AUTH_SIGNING_KEY: required when NODE_ENV=production/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('serves metrics on their own loopback port by default; 0 is any free port, off is none', () => {
    expect(loadConfig({})).toMatchObject({ METRICS_PORT: 9464, METRICS_HOST: '127.0.0.1' });
    expect(loadConfig({ METRICS_PORT: '' }).METRICS_PORT).toBe(9464);
    expect(loadConfig({ METRICS_PORT: '0' }).METRICS_PORT).toBe(0);
    expect(loadConfig({ METRICS_PORT: 'off', METRICS_HOST: '0.0.0.0' })).toMatchObject({ METRICS_PORT: 'off', METRICS_HOST: '0.0.0.0' });
    expect(() => loadConfig({ METRICS_PORT: 'none' })).toThrow(/METRICS_PORT: must be a port \(0 = any free port\) or off/);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
  });

  it('treats empty values as unset', () => {
    expect(loadConfig({ REDIS_URL: '', AUTH_DATABASE_URL: '' }).REDIS_URL).toBeUndefined();
  });
});
