import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCompany, bearer, passwordToken, request, signUpAndLogin, type Account } from '../support/http.js';
import { withMysql, type TestStack } from '../support/stack.js';
import { startSuite } from '../support/suite.js';
import { createDatabase } from '../../lib/db.js';
import path from 'node:path';

/** The effective company set is observable through GET {auth_url}/companies. */
describe('Company header', () => {
  let stack: TestStack;
  let account: Account;
  let second: string;
  let third: string;
  let allToken: string;
  let foreign: Account;

  const companies = async (headers: Record<string, string> | [string, string][]) => {
    const response = await request(`${stack.authUrl}/companies`, { headers });
    return response;
  };
  const guids = (response: { body: Array<{ guid: string }> }) => response.body.map((c) => c.guid).sort();

  beforeAll(async () => {
    ({ stack, account } = await startSuite());
    second = await addCompany(stack, account, 'Second');
    third = await addCompany(stack, account, 'Third');
    allToken = (await passwordToken(stack, account.email, account.password, '*')).access_token;
    foreign = await signUpAndLogin(stack);
  });
  afterAll(() => stack?.stop());

  it('without the header: all of the token companies', async () => {
    expect(guids(await companies(bearer(allToken)))).toEqual([account.companyId, second, third].sort());
    expect(guids(await companies(bearer(account.accessToken)))).toEqual([account.companyId]);
  });

  it('narrows to one company', async () => {
    expect(guids(await companies(bearer(allToken, { company: second })))).toEqual([second]);
  });

  it('a comma list equals repeated headers, whitespace ignored, case-insensitive GUIDs', async () => {
    const list = await companies(bearer(allToken, { company: ` ${second} ,${third.toUpperCase()} ` }));
    const repeated = await companies([
      ['authorization', `Bearer ${allToken}`],
      ['company', second],
      ['company', third],
    ]);
    expect(guids(list)).toEqual([second, third].sort());
    expect(guids(repeated)).toEqual(guids(list));
  });

  it('* lists all the token companies', async () => {
    expect(guids(await companies(bearer(allToken, { company: '*' })))).toEqual([account.companyId, second, third].sort());
    expect(guids(await companies(bearer(account.accessToken, { company: '*' })))).toEqual([account.companyId]);
  });

  it('a foreign company and a nonexistent one get the same 401', async () => {
    const foreignAnswer = await companies(bearer(allToken, { company: foreign.companyId }));
    const unknownAnswer = await companies(bearer(allToken, { company: '00000000-0000-4000-8000-000000000000' }));
    expect(foreignAnswer.status).toBe(401);
    expect(unknownAnswer.status).toBe(401);
    expect(foreignAnswer.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const normalise = (text: string) => text.replace(/[0-9a-f-]{36}/g, 'GUID');
    expect(normalise(unknownAnswer.text)).toEqual(normalise(foreignAnswer.text));
  });

  it('one uncovered company in a list is enough for 401', async () => {
    expect((await companies(bearer(allToken, { company: `${second},${foreign.companyId}` }))).status).toBe(401);
  });

  it('a company the token was not issued for is 401, even if the user belongs to it', async () => {
    expect((await companies(bearer(account.accessToken, { company: second }))).status).toBe(401);
  });

  it('a malformed value is 400', async () => {
    for (const value of ['nope', `${second},`, '12345', `${second};${third}`]) {
      const response = await companies(bearer(allToken, { company: value }));
      expect(response.status, value).toBe(400);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
    }
  });

  it('applies to /users/me as well', async () => {
    expect((await request(`${stack.authUrl}/users/me`, { headers: bearer(allToken, { company: foreign.companyId }) })).status).toBe(401);
    expect((await request(`${stack.authUrl}/users/me`, { headers: bearer(allToken, { company: 'x' }) })).status).toBe(400);
    expect((await request(`${stack.authUrl}/users/me`, { headers: bearer(allToken, { company: second }) })).status).toBe(200);
  });

  it('a token covering zero companies sees none', async () => {
    const lonely = await signUpAndLogin(stack);
    // Take the user out of its only company, straight in the auth database.
    const remove = async (db: import('knex').Knex) => db('memberships').where({ user_id: lonely.user.guid }).delete();
    if (stack.backend === 'mysql') {
      await withMysql(stack.env.AUTH_DATABASE_URL!, remove);
    } else {
      const db = createDatabase({ sqliteFile: path.join(stack.env.DATA_DIR!, 'auth.sqlite'), migrations: {} });
      await remove(db);
      await db.destroy();
    }
    const token = await passwordToken(stack, lonely.email, lonely.password, '*');
    expect(token.info.companies).toEqual([]);
    const listed = await companies(bearer(token.access_token));
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([]);
    expect((await companies(bearer(token.access_token, { company: '*' }))).body).toEqual([]);
    expect((await companies(bearer(token.access_token, { company: lonely.companyId }))).status).toBe(401);
  });
});
