import type { FieldDef, Resource } from './kinds.js';

const GUID = { type: 'guid' } as const;
const TIMESTAMP = { type: 'timestamp' } as const;

/** A name of a user, a company or an API client: 1 to 255 characters once trimmed. */
export const NAME_KIND = { type: 'text', max: 255, notBlank: true } as const;

/**
 * The user object (spec 2.2). Sign-up takes its own body (SIGN_UP_FIELDS below): no field is
 * writable through the user object itself.
 */
export const USER_FIELDS = {
  guid: { kind: GUID, nullable: false, role: 'server-managed', description: 'The user\'s id.' },
  default_company_id: { kind: GUID, nullable: false, role: 'server-managed', description: 'The company a token covers when none is asked for.' },
  whitelabel_id: { kind: GUID, nullable: false, role: 'server-managed', description: 'The white label the user signed up through.' },
  name: { kind: NAME_KIND, nullable: false, role: 'server-managed', example: 'Ada Lovelace', description: 'The user\'s name.' },
  email: { kind: { type: 'text', max: 320, format: 'email' }, nullable: false, role: 'server-managed', example: 'ada@example.com', description: 'Login name, stored lower-cased.' },
  phone: { kind: { type: 'text', max: 64 }, nullable: true, role: 'server-managed', example: '+31 20 123 4567', description: 'Phone number, if given.' },
  created_at: { kind: TIMESTAMP, nullable: false, role: 'server-managed', description: 'When the user signed up.' },
  updated_at: { kind: TIMESTAMP, nullable: false, role: 'ignored', description: 'When the user last changed.' },
  deleted_at: { kind: TIMESTAMP, nullable: true, role: 'server-managed', description: 'When the user was deleted; null while it lives.' },
} as const satisfies Record<string, FieldDef>;

export const USER: Resource<typeof USER_FIELDS> = { noun: 'user', fields: USER_FIELDS, orderRules: [] };

/**
 * The sign-up input (SignUpRequest, `POST {auth_url}/users`, `ticketing user create`): its
 * own small table, in the order its problems are reported. The fields it shares with the user
 * object take the user's rows, so their limits are written once; `password` becomes the
 * stored hash and `company_name` names the first company (the user name when absent).
 * Absent optional fields are null.
 */
export const SIGN_UP_FIELDS = {
  name: { ...USER_FIELDS.name, role: 'writable', required: true },
  email: { ...USER_FIELDS.email, role: 'writable', required: true },
  password: { kind: { type: 'text', min: 8, max: 1024 }, nullable: false, role: 'writable', required: true, writeOnly: true, example: 'correct horse battery staple', description: 'Used with the e-mail address in the password grant; never returned.' },
  company_name: { kind: { type: 'text', max: 255 }, nullable: true, role: 'writable', example: 'Lovelace Events', description: 'Name of the new company; the user name when absent.' },
  phone: { ...USER_FIELDS.phone, role: 'writable', description: 'Phone number.' },
} as const satisfies Record<string, FieldDef>;

export const SIGN_UP: Resource<typeof SIGN_UP_FIELDS> = { noun: 'sign-up', fields: SIGN_UP_FIELDS, orderRules: [] };

/**
 * The body naming a new company or API client (`POST {auth_url}/companies`, `/clients`): a
 * name of NAME_KIND, checked by the auth service (domain/text-rules.ts).
 */
export const NEW_NAME_FIELDS = {
  name: { kind: NAME_KIND, nullable: false, role: 'writable', required: true, description: '1 to 255 characters once trimmed.' },
} as const satisfies Record<string, FieldDef>;
