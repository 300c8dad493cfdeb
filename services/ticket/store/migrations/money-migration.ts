import type { Knex } from '../../../../lib/db.js';
import { canonicalDecimal } from '../../../../lib/fields/decimal.js';
import { DEFAULT_CURRENCY, unitPrice } from '../../../../lib/money.js';

/** The columns of a line's unit price (minor units; the VAT rate a decimal). */
export const LINE_PRICE_COLUMNS = ['price_unit', 'price_unit_discount', 'price_unit_service_costs', 'price_unit_total', 'price_unit_vat'] as const;

/**
 * Money (docs/orders.md "Money"): the event's currency, the order's currency and coupon code,
 * and each order line's unit price, fixed when the order is made (a reservation alone has
 * none: its columns stay null). The lines of the orders made before are priced once, here,
 * from their tickets as they are at the migration, in the default currency.
 */
export const moneyMigration: Knex.Migration = {
  async up(db) {
    await db.schema.alterTable('events', (t) => {
      t.string('currency', 3).notNullable().defaultTo(DEFAULT_CURRENCY);
    });
    await db.schema.alterTable('orders', (t) => {
      t.string('currency', 3).notNullable().defaultTo(DEFAULT_CURRENCY);
      t.string('coupon_code', 64).nullable();
    });
    await db.schema.alterTable('reservations', (t) => {
      for (const column of LINE_PRICE_COLUMNS) t.bigInteger(column).nullable();
      t.decimal('price_vat_percentage', 5, 2).nullable();
    });
    const lines = (await db('reservations')
      .join('tickets', 'tickets.guid', 'reservations.ticket_id')
      .whereNotNull('reservations.order_id')
      .select('reservations.id', 'tickets.min_price', 'tickets.vat_percentage', 'tickets.percentage_service_costs_in_ticket', 'tickets.include_service_cost_in_price')) as Array<Record<string, unknown>>;
    for (const line of lines) {
      const decimal = (value: unknown) => canonicalDecimal(value as string | number);
      const price = unitPrice(
        {
          min_price: line.min_price == null ? null : decimal(line.min_price),
          vat_percentage: decimal(line.vat_percentage),
          percentage_service_costs_in_ticket: decimal(line.percentage_service_costs_in_ticket),
          include_service_cost_in_price: Boolean(Number(line.include_service_cost_in_price)),
        },
        DEFAULT_CURRENCY,
      );
      await db('reservations')
        .where('id', Number(line.id))
        .update({
          price_unit: String(price.unit_price),
          price_unit_discount: String(price.unit_discount),
          price_unit_service_costs: String(price.unit_service_costs),
          price_unit_total: String(price.unit_total),
          price_unit_vat: String(price.unit_vat),
          price_vat_percentage: price.vat_percentage,
        });
    }
  },
  async down(db) {
    await db.schema.alterTable('reservations', (t) => {
      for (const column of [...LINE_PRICE_COLUMNS, 'price_vat_percentage']) t.dropColumn(column);
    });
    await db.schema.alterTable('orders', (t) => {
      t.dropColumn('currency');
      t.dropColumn('coupon_code');
    });
    await db.schema.alterTable('events', (t) => {
      t.dropColumn('currency');
    });
  },
};
