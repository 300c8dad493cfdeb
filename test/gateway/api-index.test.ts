/** GET / tells a newcomer where to go: the docs, the OpenAPI document, the auth API and health. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/stack.js';

describe('GET /', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ AUTH_PATH_PREFIX: '/identity' });
  });
  afterAll(async () => stack?.stop());

  it('links the docs, the document, the auth API and health, and each link answers', async () => {
    const index = await request(`${stack.baseUrl}/`);
    expect(index.status).toBe(200);
    expect(index.body).toEqual({
      name: 'Ticketing API',
      docs: '/docs',
      openapi: '/openapi.json',
      auth: '/identity',
      token: '/identity/tokens',
      health: '/healthz',
    });
    for (const link of ['docs', 'openapi', 'health']) expect((await request(`${stack.baseUrl}${index.body[link]}`)).status, link).toBe(200);
    const token = await request(`${stack.baseUrl}${index.body.token}`, { method: 'POST', json: { grant_type: 'password' } });
    expect(token.status).toBe(400);
    expect(token.body.error).toBe('invalid_request');
  });
});
