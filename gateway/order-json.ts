import { ORDER_BARCODE_FIELDS, ORDER_FIELDS, ORDER_LINE_FIELDS } from '../lib/fields/order.js';
import type { Order, OrderBarcode, OrderLine } from '../lib/gen/ticketing/v1/order.js';
import { resourceJson } from './resource-json.js';

const barcodeJson = (barcode: OrderBarcode) => ({
  ...resourceJson(ORDER_BARCODE_FIELDS, barcode),
  holder: barcode.holder ? { name: barcode.holder.name, email: barcode.holder.email } : null,
});

const lineJson = (line: OrderLine) => ({ ...resourceJson(ORDER_LINE_FIELDS, line), barcodes: line.barcodes.map(barcodeJson) });

/** The order object (PRODUCT.md 12): its table's fields, with `lines` after expires_at. */
export function orderJson(order: Order): Record<string, unknown> {
  const { created_at, updated_at, ...head } = resourceJson(ORDER_FIELDS, order);
  return { ...head, lines: order.lines.map(lineJson), created_at, updated_at };
}
