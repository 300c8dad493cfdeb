import type { Knex } from '../../../lib/db.js';

// PLACEHOLDER: the ticket schema arrives with issue 3.
export const ticketMigrations: Record<string, Knex.Migration> = {};
