import type { FieldDef, Resource } from './kinds.js';

const GUID = { type: 'guid' } as const;
const TIMESTAMP = { type: 'timestamp' } as const;

export const DISCOUNT_TYPES = ['percentage', 'fixed', 'price', 'none'] as const;
export type DiscountType = (typeof DISCOUNT_TYPES)[number];

/** The types whose value is an amount of the event's currency (the rest: a percentage, or no value). */
export const AMOUNT_TYPES: readonly DiscountType[] = ['fixed', 'price'];

/** The largest value a DECIMAL(14,2) holds. */
export const COUPON_VALUE_MAX = '999999999999.99';

/** A percentage coupon's value: 0..100 with at most 2 decimals. */
export const PERCENTAGE_MAX = '100';

/**
 * The coupon (PRODUCT.md 15, docs/coupons.md): a campaign of one event; every field once, in
 * the JSON object's order. The value's rules by discount_type are the service's
 * (services/ticket/catalogue/coupon-rules.ts).
 */
export const COUPON_FIELDS = {
  guid: { kind: GUID, nullable: false, role: 'server-managed', description: 'The coupon\'s id.' },
  company_id: { kind: GUID, nullable: false, role: 'server-managed', description: 'The company of its event.' },
  event_id: { kind: GUID, nullable: false, role: 'server-managed', description: 'The event whose tickets it discounts.' },
  name: { kind: { type: 'text', max: 255, notBlank: true }, nullable: false, role: 'writable', required: true, example: 'Early birds', description: 'Name for the people who manage it.' },
  discount_type: {
    kind: { type: 'enum', values: DISCOUNT_TYPES },
    nullable: false,
    role: 'writable',
    required: true,
    example: 'percentage',
    description: 'percentage: value percent off each unit; fixed: value off each unit (at most its price); price: each unit costs value; none: no discount (a code that only unlocks tickets).',
  },
  value: {
    kind: { type: 'decimal', min: '0', max: COUPON_VALUE_MAX },
    nullable: true,
    role: 'writable',
    example: '10',
    description: `percentage: 0 to ${PERCENTAGE_MAX} with at most 2 decimals; fixed and price: an amount of the event's currency, at least 0, with at most its minor digits; required for those three, null for none.`,
  },
  ticket_ids: {
    kind: { type: 'text-list', minItems: 1 },
    nullable: true,
    role: 'writable',
    description: 'The live tickets of the event it applies to, each once; null: every ticket except those with hide_without_coupon. An empty list is refused (send null).',
  },
  valid_from: { kind: TIMESTAMP, nullable: true, role: 'writable', example: '2027-05-01T00:00:00+02:00', description: 'From when its codes may be used; null: from now.' },
  valid_until: { kind: TIMESTAMP, nullable: true, role: 'writable', example: '2027-06-30T23:59:59+02:00', description: 'Until when its codes may be used; after valid_from; null: no end.' },
  created_at: { kind: TIMESTAMP, nullable: false, role: 'server-managed', description: 'When it was created.' },
  updated_at: { kind: TIMESTAMP, nullable: false, role: 'ignored', description: 'When it last changed.' },
  deleted_at: { kind: TIMESTAMP, nullable: true, role: 'server-managed', description: 'When it was deleted (its codes stopped working then); null while it lives.' },
  etag: { kind: { type: 'text', max: 64 }, nullable: false, role: 'computed', notInJson: true, description: 'Changes whenever the coupon changes (AIP-154); the ETag header over REST.' },
} as const satisfies Record<string, FieldDef>;

export const COUPON: Resource<typeof COUPON_FIELDS> = {
  noun: 'coupon',
  fields: COUPON_FIELDS,
  orderRules: [{ lower: 'valid_from', upper: 'valid_until', allowEqual: false, lowerMessage: 'must be before {upper}', upperMessage: 'must be after {lower}' }],
};

/** A code's text: 4..64 printable ASCII characters without spaces (\x21-\x7e). */
export const CODE_TEXT = { min: 4, max: 64 } as const;
export const CODE_PATTERN = `^[\\x21-\\x7e]{${CODE_TEXT.min},${CODE_TEXT.max}}$`;

/** How many uses (orders) and units a code allows: a whole number from 1, or null for no limit. */
const LIMIT = { type: 'integer', min: 1 } as const;

/** A code as listed (GET /coupon/:guid/codes) and as answered by its creation. */
export const COUPON_CODE_FIELDS = {
  code: { kind: { type: 'text', max: CODE_TEXT.max }, nullable: false, role: 'server-managed', description: 'What buyers type, as given (matched ignoring case).' },
  usage_count: { kind: LIMIT, nullable: true, role: 'server-managed', description: 'How many orders may use it; null: no limit.' },
  applies_to_count: { kind: LIMIT, nullable: true, role: 'server-managed', description: 'How many units of one order it discounts, in line order; null: all.' },
  used_count: { kind: { type: 'integer', min: 0 }, nullable: false, role: 'server-managed', default: 0, description: 'How many orders hold it now (reserved, pending or confirmed).' },
  created_at: { kind: TIMESTAMP, nullable: false, role: 'server-managed', description: 'When it was added.' },
} as const satisfies Record<string, FieldDef>;

export const COUPON_CODE: Resource<typeof COUPON_CODE_FIELDS> = { noun: 'coupon code', fields: COUPON_CODE_FIELDS, orderRules: [] };

/** One code of `codes` in POST /coupon/:guid/codes. */
export const CODE_INPUT_FIELDS = {
  code: {
    kind: { type: 'text', max: CODE_TEXT.max, min: CODE_TEXT.min },
    nullable: false,
    role: 'writable',
    required: true,
    example: 'SUMMER-2027',
    description: `${CODE_TEXT.min} to ${CODE_TEXT.max} printable ASCII characters without spaces; unique within the event ignoring case.`,
  },
  usage_count: { kind: LIMIT, nullable: true, role: 'writable', default: 1, description: COUPON_CODE_FIELDS.usage_count.description },
  applies_to_count: { kind: LIMIT, nullable: true, role: 'writable', default: 1, description: COUPON_CODE_FIELDS.applies_to_count.description },
} as const satisfies Record<string, FieldDef>;

/** The most codes one request adds, given or generated. */
export const MAX_CODES_PER_REQUEST = 1000;
/** A generated code's prefix: 0..32 printable ASCII characters without spaces. */
export const PREFIX_MAX = 32;

export const PREFIX_PATTERN = `^[\\x21-\\x7e]{0,${PREFIX_MAX}}$`;

/** The body of POST /coupon/:guid/codes: `codes`, or `generate` with `prefix` (and limits for all). */
export const ADD_CODES_FIELDS = {
  codes: {
    kind: { type: 'object-list', fields: CODE_INPUT_FIELDS, maxItems: MAX_CODES_PER_REQUEST },
    nullable: false,
    role: 'writable',
    description: `The codes to add (1 to ${MAX_CODES_PER_REQUEST}); not with generate.`,
  },
  generate: {
    kind: { type: 'integer', min: 1, max: MAX_CODES_PER_REQUEST },
    nullable: true,
    role: 'writable',
    example: 10,
    description: `How many codes to generate (1 to ${MAX_CODES_PER_REQUEST}): the prefix, then 12 characters of 23456789ABCDEFGHJKMNPQRSTUVWXYZ (about 59 bits); not with codes.`,
  },
  prefix: { kind: { type: 'text', max: PREFIX_MAX }, nullable: true, role: 'writable', example: 'SUMMER-', description: `Generated codes start with it: 0 to ${PREFIX_MAX} printable ASCII characters without spaces.` },
  usage_count: { ...CODE_INPUT_FIELDS.usage_count, description: `Generated codes: ${COUPON_CODE_FIELDS.usage_count.description}` },
  applies_to_count: { ...CODE_INPUT_FIELDS.applies_to_count, description: `Generated codes: ${COUPON_CODE_FIELDS.applies_to_count.description}` },
} as const satisfies Record<string, FieldDef>;

export const ADD_CODES: Resource<typeof ADD_CODES_FIELDS> = { noun: 'code request', fields: ADD_CODES_FIELDS, orderRules: [] };

/** The limits a code row has, the nullable fields of CODE_INPUT_FIELDS whose null is sent by name (null_fields). */
export const CODE_LIMITS = ['usage_count', 'applies_to_count'] as const;
