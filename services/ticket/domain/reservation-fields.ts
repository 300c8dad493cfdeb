/**
 * The reservation object (PRODUCT.md 9) and the scan answer, field by field: the one list
 * the service's messages, the gateway's JSON and the OpenAPI schemas are derived from.
 * The names are those of the protobuf messages (ticketing.v1.Reservation, Scan).
 */

export const RESERVATION_STATES = ['reserved', 'pending', 'confirmed', 'released', 'expired'] as const;
export type ReservationState = (typeof RESERVATION_STATES)[number];

/** States that hold stock (and can expire). */
export const LIVE_STATES = ['reserved', 'pending'] as const satisfies readonly ReservationState[];

export type FieldKind = 'guid' | 'integer' | 'state' | 'timestamp' | 'text' | 'text-list';

export interface ObjectField {
  name: string;
  kind: FieldKind;
  nullable: boolean;
  description: string;
}

export const RESERVATION_FIELDS = [
  { name: 'guid', kind: 'guid', nullable: false, description: 'GUID of the reservation.' },
  { name: 'company_id', kind: 'guid', nullable: false, description: 'The company of the ticket.' },
  { name: 'event_id', kind: 'guid', nullable: false, description: 'The event of the ticket.' },
  { name: 'ticket_id', kind: 'guid', nullable: false, description: 'The ticket whose stock is held.' },
  { name: 'amount', kind: 'integer', nullable: false, description: 'How many of the ticket are held or sold.' },
  { name: 'state', kind: 'state', nullable: false, description: 'reserved, pending (payment started), confirmed (sold), released or expired.' },
  {
    name: 'expires_at',
    kind: 'timestamp',
    nullable: true,
    description: 'When a reserved or pending reservation expires (or expired); null once confirmed or released.',
  },
  { name: 'barcodes', kind: 'text-list', nullable: false, description: 'The barcodes issued on confirmation; empty before, and for barcode_type none.' },
  { name: 'created_at', kind: 'timestamp', nullable: false, description: 'When it was reserved.' },
  { name: 'updated_at', kind: 'timestamp', nullable: false, description: 'The last move.' },
] as const satisfies readonly ObjectField[];

export const SCAN_FIELDS = [
  { name: 'barcode', kind: 'text', nullable: false, description: 'The barcode scanned.' },
  { name: 'ticket_id', kind: 'guid', nullable: false, description: 'The ticket it was sold for.' },
  { name: 'reservation_id', kind: 'guid', nullable: false, description: 'The confirmed reservation that issued it.' },
  { name: 'scanned_at', kind: 'timestamp', nullable: false, description: 'When it was admitted.' },
] as const satisfies readonly ObjectField[];

export type ReservationFieldName = (typeof RESERVATION_FIELDS)[number]['name'];

/** A stored reservation: the object's fields plus the row id (creation order, the paging key). */
export interface ReservationRecord {
  id: number;
  guid: string;
  company_id: string;
  event_id: string;
  ticket_id: string;
  amount: number;
  state: ReservationState;
  expires_at: Date | null;
  barcodes: string[];
  created_at: Date;
  updated_at: Date;
}
