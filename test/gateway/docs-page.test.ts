/**
 * The docs page in a real browser (issue 13 item 3, issue 20 item 4): Debian's chromium driven
 * by playwright-core. The page renders from its local assets, logs in through the OAuth2
 * password flow of the document (Authorize gets the token itself), keeps the login across a
 * reload, and "Try it out" on GET /event answers 200; a newcomer's "start here" steps (sign
 * up, Authorize, create an event, a ticket, reserve, confirm) succeed with the pre-filled
 * bodies, reached through the description's links; all behind a reverse proxy that serves
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
import { startTestStack, type TestStack } from '../support/stack.js';

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
if (!hasChromium) console.warn(`docs-page test skipped: no ${CHROMIUM} (apt-get install -y chromium; .ci/run installs it)`);

describe.skipIf(!hasChromium)('the /docs page in chromium', () => {
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

  /** Logs in with the password flow of Authorize, as a person would. */
  const authorize = async (on: Page, email: string, password: string) => {
    await on.locator('.auth-wrapper .authorize').click();
    const flow = on.locator('.auth-container').filter({ has: on.locator('#oauth_username') });
    await flow.locator('#oauth_username').fill(email);
    await flow.locator('#oauth_password').fill(password);
    const [token] = await Promise.all([on.waitForResponse((r) => new URL(r.url()).pathname === '/api/auth/tokens'), flow.locator('button.authorize').click()]);
    expect(token.status(), await token.text()).toBe(200);
    // Logged in: the flow's form gives way to its Logout button.
    await on.locator('.dialog-ux button', { hasText: 'Logout' }).first().waitFor();
    await on.locator('.dialog-ux .close-modal').first().click();
  };

  /**
   * One start-here step: its link in the description opens the operation (the page's deep
   * link), Try it out, the path parameters filled in, the pre-filled body left as it is,
   * Execute; the API's answer.
   */
  const step = async (on: Page, link: string, pathParameters: Record<string, string> = {}) => {
    await on.locator(`.info .description a[href="${link}"]`).click();
    const [, tag, operationId] = link.split('/');
    const operation = on.locator(`#operations-${tag}-${operationId}`);
    await operation.locator('.try-out__btn').click();
    for (const [name, value] of Object.entries(pathParameters)) await operation.locator(`tr[data-param-name="${name}"] input`).fill(value);
    const [response] = await Promise.all([
      on.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname.startsWith('/api/') && !r.url().endsWith('/openapi.json')),
      operation.locator('.execute').click(),
    ]);
    return { status: response.status(), body: (await response.json()) as Record<string, any>, sent: response.request().postData() ?? '' };
  };

  it('runs the start-here steps with the pre-filled bodies: sign up, Authorize, an event, a ticket, reserve, confirm', async () => {
    const document = (await (await fetch(`${stack.baseUrl}/openapi.json`)).json()) as any;
    const example = document.paths['/auth/users'].post.requestBody.content['application/json'].example;
    // A fresh browser context: nobody logged in yet.
    const context = await browser.newContext();
    try {
      const newcomer = await context.newPage();
      newcomer.setDefaultTimeout(20_000);
      await newcomer.goto(`${proxy.url}/docs`);
      await newcomer.locator('.info .description a[href="#/auth/signUp"]').waitFor();
      const answers: string[] = [];
      const expect2xx = (what: string, answer: { status: number; body: unknown; sent: string }) => {
        answers.push(`${what} ${answer.status}`);
        expect(answer.status, `${what}: sent ${answer.sent}, got ${JSON.stringify(answer.body)}`).toBeGreaterThanOrEqual(200);
        expect(answer.status, `${what}: sent ${answer.sent}, got ${JSON.stringify(answer.body)}`).toBeLessThan(300);
      };
      const signUp = await step(newcomer, '#/auth/signUp');
      expect2xx('sign up', signUp);
      expect(JSON.parse(signUp.sent)).toEqual(example);
      await authorize(newcomer, example.email, example.password);
      const event = await step(newcomer, '#/events/createEvent');
      expect2xx('create an event', event);
      const ticket = await step(newcomer, '#/tickets/createTicket', { eventGuid: event.body.guid });
      expect2xx('create a ticket', ticket);
      const reservation = await step(newcomer, '#/stock/reserveTicket', { guid: ticket.body.guid });
      expect2xx('reserve', reservation);
      const confirmed = await step(newcomer, '#/stock/confirmReservation', { guid: reservation.body.guid });
      expect2xx('confirm', confirmed);
      expect(confirmed.body.state).toBe('confirmed');
      expect(answers).toHaveLength(5);
    } finally {
      await context.close();
    }
  }, 120_000);

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

    await authorize(page, account.email, account.password);

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
