/** The one reservation field list and the protobuf messages cannot drift apart. */
import { describe, expect, it } from 'vitest';
import { Reservation, Scan } from '../../lib/gen/ticketing/v1/reservation.js';
import { RESERVATION_FIELDS, SCAN_FIELDS } from '../../services/ticket/domain/reservation-fields.js';
import { RESERVATION_KEYS } from './helpers.js';

describe('reservation fields', () => {
  it('the field list names exactly the fields of ticketing.v1.Reservation and Scan, and the contract\'s ten', () => {
    expect(RESERVATION_FIELDS.map((f) => f.name).sort()).toEqual(Object.keys(Reservation.fromPartial({})).sort());
    expect(SCAN_FIELDS.map((f) => f.name).sort()).toEqual(Object.keys(Scan.fromPartial({})).sort());
    expect(RESERVATION_FIELDS.map((f) => f.name).sort()).toEqual(RESERVATION_KEYS);
  });
});
