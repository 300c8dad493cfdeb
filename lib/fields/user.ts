import type { FieldDef, Resource } from './kinds.js';

const GUID = { type: 'guid' } as const;
const TIMESTAMP = { type: 'timestamp' } as const;

/**
 * The user object (spec 2.2). Sign-up takes its own body (SignUpRequest): no field is
 * writable through the user object itself.
 */
export const USER_FIELDS = {
  guid: { kind: GUID, nullable: false, role: 'server-managed', description: 'The user\'s id.' },
  default_company_id: { kind: GUID, nullable: false, role: 'server-managed', description: 'The company a token covers when none is asked for.' },
  whitelabel_id: { kind: GUID, nullable: false, role: 'server-managed', description: 'The white label the user signed up through.' },
  name: { kind: { type: 'text', max: 255, notBlank: true }, nullable: false, role: 'server-managed', description: 'The user\'s name.' },
  email: { kind: { type: 'text', max: 320, format: 'email' }, nullable: false, role: 'server-managed', description: 'Login name, stored lower-cased.' },
  phone: { kind: { type: 'text', max: 64 }, nullable: true, role: 'server-managed', description: 'Phone number, if given.' },
  created_at: { kind: TIMESTAMP, nullable: false, role: 'server-managed', description: 'When the user signed up.' },
  updated_at: { kind: TIMESTAMP, nullable: false, role: 'ignored', description: 'When the user last changed.' },
  deleted_at: { kind: TIMESTAMP, nullable: true, role: 'server-managed', description: 'When the user was deleted; null while it lives.' },
} as const satisfies Record<string, FieldDef>;

export const USER: Resource<typeof USER_FIELDS> = { noun: 'user', fields: USER_FIELDS, orderRules: [] };
