import { isUniqueViolation } from '../../../lib/db.js';
import { stockConflict } from '../../../lib/stock-conflicts.js';

/**
 * Runs the write of a confirmation's barcodes. A sent code already in use within the event is
 * refused here (barcode_taken), where the reservation or order line that sent it is known; a
 * generated code that collided stays a unique violation, for retryingBarcodeCollisions to run again.
 */
export async function refusingTakenCodes(sent: boolean, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (err) {
    throw sent && isUniqueViolation(err) ? stockConflict('barcode_taken') : err;
  }
}
