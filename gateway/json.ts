import type { ApiClient, Company, User } from '../lib/gen/auth/v1/auth.js';
import { formatTimestamp } from '../lib/time.js';

/** User object exactly as spec section 2.2. */
export function userJson(user: User) {
  return {
    guid: user.guid,
    default_company_id: user.default_company_id,
    whitelabel_id: user.whitelabel_id,
    name: user.name,
    email: user.email,
    phone: user.phone ?? null,
    created_at: formatTimestamp(user.created_at),
    updated_at: formatTimestamp(user.updated_at),
    deleted_at: formatTimestamp(user.deleted_at),
  };
}

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
