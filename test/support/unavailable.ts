import { expect } from 'vitest';
import type { JsonResponse } from './http.js';

/** What an answer must never show: SQL, driver and library names, error codes, stack frames, file paths, addresses. */
export const INTERNALS =
  /\b(SELECT|INSERT|UPDATE|DELETE|FROM|WHERE)\b|`|knex|mysql|mariadb|sqlite|ECONN|ETIMEDOUT|EHOSTUNREACH|PROTOCOL_|\bER_[A-Z_]+|errno|sqlState|\bat \S+ \(|\.(ts|js|mjs|cjs)\b|node_modules|[/\\](work|home|tmp|usr|srv|app)[/\\]|localhost|\b\d{1,3}(\.\d{1,3}){3}\b|stack|Timeout acquiring/i;

export function expectUnavailableProblem(res: JsonResponse, label: string): void {
  expect(res.status, `${label}: ${res.text.slice(0, 500)}`).toBe(503);
  expect(res.headers.get('retry-after'), label).toMatch(/^[1-9]\d*$/);
  expect(res.headers.get('content-type') ?? '', label).toMatch(/^application\/problem\+json/);
  expect(res.body, label).toMatchObject({ status: 503 });
  expect(typeof res.body.title, label).toBe('string');
  expect(typeof res.body.detail, label).toBe('string');
  expect(res.text, label).not.toMatch(INTERNALS);
}
