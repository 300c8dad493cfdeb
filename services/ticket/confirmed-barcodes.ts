import { isUniqueViolation, type Knex } from '../../lib/db.js';
import { stockConflict } from '../../lib/stock-conflicts.js';
import type { ReservationRecord } from './domain/reservation-fields.js';
import type { ReservationStore } from './store/reservation-store.js';

/**
 * Writes a confirmation's barcodes. A sent code already in use within the event is refused
 * here (barcode_taken), where the reservation or order line that sent it is known; a generated
 * code that collided stays a unique violation, for retryingBarcodeCollisions to run again.
 */
export async function insertConfirmedBarcodes(store: ReservationStore, trx: Knex, reservation: ReservationRecord, barcodes: readonly string[], sent: boolean, now: Date): Promise<void> {
  try {
    await store.insertBarcodes(trx, reservation, barcodes, now);
  } catch (err) {
    throw sent && isUniqueViolation(err) ? stockConflict('barcode_taken') : err;
  }
}
