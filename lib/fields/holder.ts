import type { FieldDef } from './kinds.js';

/**
 * Who may enter with a barcode (PRODUCT.md 12 "Holders"): a name and an e-mail address, each
 * trimmed of surrounding spaces when taken; the door checks the name (the scan answer shows
 * it). Columns barcodes.holder_name and holder_email (store/barcode-holder-migration.ts).
 */
export const HOLDER_FIELDS = {
  name: {
    kind: { type: 'text', max: 200, notBlank: true },
    nullable: false,
    role: 'writable',
    required: true,
    example: 'Ada Lovelace',
    description: 'The holder\'s name, 1 to 200 characters, not blank.',
  },
  email: {
    kind: { type: 'text', max: 254, format: 'email' },
    nullable: false,
    role: 'writable',
    required: true,
    example: 'ada@example.com',
    description: 'The holder\'s e-mail address (name@domain.tld), at most 254 characters.',
  },
} as const satisfies Record<string, FieldDef>;

// A type, not an interface: it is a nested value of a field table (an index signature takes it).
export type Holder = { name: string; email: string };

/** A barcode's holder as every answer shows it: null when none is named. */
export const HOLDER_FIELD = {
  kind: { type: 'object', fields: HOLDER_FIELDS },
  nullable: true,
  role: 'server-managed',
  description: 'Who may enter with the barcode ({name, email}); null when none is named.',
} as const satisfies FieldDef;
