import type { ApiClient, Company, User } from '../lib/gen/auth/v1/auth.js';
import { USER_FIELDS } from '../lib/fields/user.js';
import { formatTimestamp } from '../lib/time.js';
import { resourceJson } from './resource-json.js';

/** User object exactly as spec section 2.2 (lib/fields/user.ts). */
export const userJson = (user: User) => resourceJson(USER_FIELDS, user);

export function companyJson(company: Company) {
  return {
    guid: company.guid,
    name: company.name,
    created_at: formatTimestamp(company.created_at),
    updated_at: formatTimestamp(company.updated_at),
  };
}

/** An API client, never with its secret (that is added once, on creation). */
export function apiClientJson(client: ApiClient) {
  return {
    client_id: client.client_id,
    name: client.name,
    company_ids: client.company_ids,
    created_at: formatTimestamp(client.created_at),
  };
}
