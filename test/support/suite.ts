/**
 * One call that gives a suite what nearly every suite needs: its own running stack, a signed-up
 * account (own company) with a token, the `Who` to call the API as that account, and, when
 * asked, an event of that account. Use it in `beforeAll`; stop the stack in `afterAll` (which
 * also runs when the rest of beforeAll fails; startSuite cleans up after its own failures):
 *
 *   let stack: TestStack;
 *   let who: Who;
 *   let eventGuid: string;
 *
 *   beforeAll(async () => {
 *     ({ stack, who, eventGuid } = await startSuite({ event: { name: 'My event' } }));
 *   });
 *   afterAll(() => stack?.stop());
 *
 * Everything a test changes beyond that it makes itself (its own tickets, events, accounts), so
 * that every test passes alone and in any order (`vitest --sequence.shuffle`).
 */
import { afterAll, beforeAll } from 'vitest';
import { createEvent, type Who } from './api.js';
import { signUpAndLogin, type Account } from './http.js';
import type { EventJson } from './json-types.js';
import { startTestStack, type TestStack } from './stack.js';

export interface SuiteOptions {
  /** Environment overrides of the stack (see startTestStack). */
  env?: Record<string, string>;
  /** The other options of startTestStack (logger, mapDatabaseUrl). */
  stackOptions?: Parameters<typeof startTestStack>[1];
  /** Sign-up details of the account. */
  account?: Parameters<typeof signUpAndLogin>[1];
  /** The body of an event to create for the account. */
  event?: Record<string, unknown>;
}

export interface Suite {
  stack: TestStack;
  account: Account;
  /** The account's access token (covers its own company). */
  token: string;
  /** The account calling the API with its token. */
  who: Who;
}

export interface SuiteWithEvent extends Suite {
  event: EventJson;
  eventGuid: string;
}

export function startSuite(options: SuiteOptions & { event: Record<string, unknown> }): Promise<SuiteWithEvent>;
export function startSuite(options?: SuiteOptions): Promise<Suite>;
export async function startSuite(options: SuiteOptions = {}): Promise<Suite | SuiteWithEvent> {
  const stack = await startTestStack(options.env, options.stackOptions);
  try {
    const account = await signUpAndLogin(stack, options.account);
    const who: Who = { stack, token: account.accessToken };
    const suite: Suite = { stack, account, token: account.accessToken, who };
    if (!options.event) return suite;
    const event = await createEvent(who, options.event);
    return { ...suite, event, eventGuid: event.guid };
  } catch (err) {
    await stack.stop();
    throw err;
  }
}

/**
 * The suite of one test file, from `start`: started before the file's tests, stopped after them.
 * Its fields are filled in when the tests start, so read them inside a test, not at the file's
 * top level.
 */
export function suiteOfFile<S extends { stop(): Promise<void> }>(start: () => Promise<S>): S {
  const suite = {} as S;
  beforeAll(async () => {
    Object.assign(suite, await start());
  });
  afterAll(() => suite.stop?.());
  return suite;
}
