import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../lib/config.js';

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

  it('refuses production without a signing key', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/AUTH_JWT_SECRET/);
    expect(() => loadConfig({ NODE_ENV: 'production', AUTH_JWT_SECRET: 'x'.repeat(32) })).not.toThrow();
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
