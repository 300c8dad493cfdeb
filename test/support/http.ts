import { randomBytes } from 'node:crypto';
import type { TestStack } from './stack.js';

export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** fetch that reads the body once, as JSON when it is JSON. */
export async function request<T = any>(url: string, init: RequestInit & { json?: unknown } = {}): Promise<JsonResponse<T>> {
  const headers = new Headers(init.headers);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  }
  const response = await fetch(url, { ...init, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  if (/json/.test(response.headers.get('content-type') ?? '') && text) parsed = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

export function bearer(token: string, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${token}`, ...extra };
}

export interface Account {
  user: any;
  email: string;
  password: string;
  companyId: string;
  accessToken: string;
  refreshToken: string;
}

export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}@example.com`;
}

/** Signs up a new user (with its own company) and gets a password-grant token for it. */
export async function signUpAndLogin(stack: TestStack, options: { name?: string; companyName?: string; companyId?: string } = {}): Promise<Account> {
  const email = uniqueEmail();
  const password = 'correct horse battery';
  const signUp = await request(`${stack.authUrl}/users`, {
    method: 'POST',
    json: { name: options.name ?? 'Test User', email, password, company_name: options.companyName ?? 'Test Company' },
  });
  if (signUp.status !== 201) throw new Error(`sign-up failed: ${signUp.status} ${signUp.text}`);
  const token = await passwordToken(stack, email, password, options.companyId);
  return { user: signUp.body, email, password, companyId: signUp.body.default_company_id, accessToken: token.access_token, refreshToken: token.refresh_token };
}

export async function passwordToken(stack: TestStack, email: string, password: string, companyId?: string): Promise<any> {
  const form = new URLSearchParams({ grant_type: 'password', username: email, password });
  if (companyId !== undefined) form.set('company_id', companyId);
  const response = await request(`${stack.authUrl}/tokens`, { method: 'POST', body: form });
  if (response.status !== 200) throw new Error(`token failed: ${response.status} ${response.text}`);
  return response.body;
}
