/**
 * The docs page in a real browser (issue 13 item 3): Debian's chromium driven by
 * playwright-core. The page renders from its local assets, logs in through the OAuth2
 * password flow of the document (Authorize gets the token itself), keeps the login across a
 * reload, and "Try it out" on GET /event answers 200, all behind a reverse proxy that serves
 * the API under a path prefix (every URL of the page and the document is relative). The page and the document are the same
 * on both backends, so the mysql project skips this file; without /usr/bin/chromium
 * (`apt-get install -y chromium`, which .ci/run does) it is skipped with that message.
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpAndLogin, type Account } from '../support/http.js';
import { startTestStack, testBackend, type TestStack } from '../support/stack.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** A reverse proxy serving `target` under `/api`, as one behind a path prefix would. */
async function prefixProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    if (!req.url?.startsWith('/api/')) return void res.writeHead(404).end();
    const forward = http.request({ host: upstream.hostname, port: upstream.port, path: req.url.slice('/api'.length), method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium && testBackend() === 'embedded') console.warn(`docs-page test skipped: no ${CHROMIUM} (apt-get install -y chromium; .ci/run installs it)`);

describe.skipIf(testBackend() === 'mysql' || !hasChromium)('the /docs page in chromium', () => {
  let stack: TestStack;
  let account: Account;
  let browser: Browser;
  let page: Page;
  let proxy: Awaited<ReturnType<typeof prefixProxy>>;

  beforeAll(async () => {
    stack = await startTestStack();
    account = await signUpAndLogin(stack);
    proxy = await prefixProxy(stack.baseUrl);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 60_000 });
    page = await browser.newPage();
    page.setDefaultTimeout(20_000);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await stack?.stop();
  });

  /** The live GET /event the page makes when "Execute" is clicked. */
  const executeListEvents = async () => {
    const listEvents = page.locator('#operations-events-listEvents');
    if (!(await listEvents.locator('.execute').isVisible())) {
      if (!(await listEvents.locator('.try-out__btn').isVisible())) await listEvents.locator('.opblock-summary').click();
      await listEvents.locator('.try-out__btn').click();
    }
    const [response] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === '/api/event' && r.request().method() === 'GET'),
      listEvents.locator('.execute').click(),
    ]);
    await expect.poll(() => listEvents.locator('.live-responses-table tbody .response-col_status').first().textContent()).toContain(String(response.status()));
    return response;
  };

  it('renders behind a path prefix, logs in with the password flow, keeps the login, and Try it out on GET /event answers 200', async () => {
    // `/docs/` is sent to `/docs`, where the page's relative URLs resolve.
    await page.goto(`${proxy.url}/docs/`);
    expect(new URL(page.url()).pathname).toBe('/api/docs');
    await expect.poll(() => page.locator('.swagger-ui .info .title').textContent()).toContain('Ticketing API');

    await page.locator('.auth-wrapper .authorize').click();
    const password = page.locator('.auth-container').filter({ has: page.locator('#oauth_username') });
    await password.locator('#oauth_username').fill(account.email);
    await password.locator('#oauth_password').fill(account.password);
    const [token] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === '/api/auth/tokens'),
      password.locator('button.authorize').click(),
    ]);
    expect(token.status(), await token.text()).toBe(200);
    // Logged in: the flow's form gives way to its Logout button.
    await page.locator('.dialog-ux button', { hasText: 'Logout' }).first().waitFor();
    await page.locator('.dialog-ux .close-modal').first().click();

    const response = await executeListEvents();
    expect(response.status()).toBe(200);
    expect(response.request().headers().authorization).toMatch(/^Bearer .+/);

    // persistAuthorization keeps the token response in local storage, never the password (docs/security.md).
    const stored = await page.evaluate(() => JSON.stringify((globalThis as unknown as { localStorage: object }).localStorage));
    expect(stored).toContain('access_token');
    expect(stored).not.toContain(account.password);
    // The token survives a reload.
    await page.reload();
    await page.locator('.auth-wrapper .authorize.locked').waitFor();
    expect((await executeListEvents()).status()).toBe(200);
  }, 120_000);
});
