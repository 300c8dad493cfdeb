import { randomBytes } from 'node:crypto';
import type { CompanyJson, TokenJson, UserJson } from './json-types.js';
import type { TestStack } from './stack.js';

/** The default `any` body is for tests that read arbitrary (also wrong) answers; helpers that know the shape name it. */
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

export const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function bearer(token: string, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${token}`, ...extra };
}

export interface Account {
  user: UserJson;
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
  const signUp = await request<UserJson>(`${stack.authUrl}/users`, {
    method: 'POST',
    json: { name: options.name ?? 'Test User', email, password, company_name: options.companyName ?? 'Test Company' },
  });
  if (signUp.status !== 201) throw new Error(`sign-up failed: ${signUp.status} ${signUp.text}`);
  const token = await passwordToken(stack, email, password, options.companyId);
  return { user: signUp.body, email, password, companyId: signUp.body.default_company_id, accessToken: token.access_token, refreshToken: token.refresh_token };
}

/** A password grant always carries a refresh token. */
export type PasswordTokenJson = TokenJson & Required<Pick<TokenJson, 'refresh_token' | 'refresh_token_expires_in'>>;

export async function passwordToken(stack: TestStack, email: string, password: string, companyId?: string): Promise<PasswordTokenJson> {
  const form = new URLSearchParams({ grant_type: 'password', username: email, password });
  if (companyId !== undefined) form.set('company_id', companyId);
  const response = await request<PasswordTokenJson>(`${stack.authUrl}/tokens`, { method: 'POST', body: form });
  if (response.status !== 200) throw new Error(`token failed: ${response.status} ${response.text}`);
  return response.body;
}

/** Adds a company to the account's user; returns its GUID. */
export async function addCompany(stack: TestStack, account: Account, name: string): Promise<string> {
  const res = await request<CompanyJson>(`${stack.authUrl}/companies`, { method: 'POST', headers: bearer(account.accessToken), json: { name } });
  if (res.status !== 201 || !GUID.test(res.body.guid)) throw new Error(`POST /companies failed: ${res.status} ${res.text}`);
  return res.body.guid;
}

export interface TwoCompanyAccount extends Account {
  secondCompanyId: string;
  /** A token covering both companies (company_id='*'). */
  allToken: string;
}

/** A user with two companies and a token that covers both. */
export async function twoCompanyAccount(stack: TestStack): Promise<TwoCompanyAccount> {
  const account = await signUpAndLogin(stack, { companyName: 'First Co' });
  const secondCompanyId = await addCompany(stack, account, 'Second Co');
  const token = await passwordToken(stack, account.email, account.password, '*');
  return { ...account, secondCompanyId, allToken: token.access_token };
}
