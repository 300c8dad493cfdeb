/** The OpenAPI document describes the real answers of the stock moves (the route list itself is checked by test/gateway/openapi.test.ts). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, signUpAndLogin } from '../support/http.js';
import { openApiValidator } from '../support/openapi.js';
import { startTestStack, type TestStack } from '../support/stack.js';
import { moveRest, newTicket, reserve, scanRest } from '../support/stock.js';
import { type Who } from '../support/api.js';

let stack: TestStack;
let who: Who;
let validate: (schemaName: string, value: unknown) => string[];

beforeAll(async () => {
  stack = await startTestStack();
  who = { stack, token: (await signUpAndLogin(stack)).accessToken };
  validate = openApiValidator((await request(`${stack.baseUrl}/openapi.json`)).body).schema;
});

afterAll(async () => stack?.stop());

describe('OpenAPI of the stock moves', () => {
  it('Reservation, Scan and the 409 problem with its code match what the API answers', async () => {
    const { guid, eventGuid } = await newTicket(who, { available_stock: 2 });
    const reserved = await reserve(who, guid, { amount: 2 });
    expect(validate('Reservation', reserved.body)).toEqual([]);
    expect(validate('ReservationCreate', { amount: 2, ttl_seconds: 60 })).toEqual([]);
    expect(validate('ReservationCreate', { amount: 2, ttl_seconds: 3601 })).not.toEqual([]);
    const refused = await reserve(who, guid, { amount: 1 });
    expect(refused.status).toBe(409);
    expect(validate('Problem', refused.body)).toEqual([]);
    const confirmed = await moveRest(who, reserved.body.guid, 'confirm');
    expect(validate('Reservation', confirmed.body)).toEqual([]);
    const scan = await scanRest(who, eventGuid, confirmed.body.barcodes[0]);
    expect(validate('Scan', scan.body)).toEqual([]);
    const again = await scanRest(who, eventGuid, confirmed.body.barcodes[0]);
    expect(validate('Problem', again.body)).toEqual([]);
  });
});
