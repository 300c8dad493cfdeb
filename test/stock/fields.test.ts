/** The reservation field table and the contract's reservation object cannot drift apart (the proto: test/fields). */
import { describe, expect, it } from 'vitest';
import { RESERVATION_FIELDS } from '../../lib/fields/reservation.js';
import { RESERVATION_KEYS } from '../support/stock.js';

describe('reservation fields', () => {
  it('the field table names exactly the contract\'s ten fields', () => {
    expect(Object.keys(RESERVATION_FIELDS).sort()).toEqual(RESERVATION_KEYS);
  });
});
