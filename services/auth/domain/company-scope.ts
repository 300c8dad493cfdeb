import { isGuid } from '../../../lib/ids.js';

/** The company_id value that asks for a token covering no company (empty cannot: RFC 6749 3.2 treats it as omitted). */
const NO_COMPANIES = 'none';

/**
 * The companies a token is issued for, from the token request's company_id: empty = the
 * user's default company, `*` = all of the user's companies, `none` = no company at all,
 * else a GUID or a comma list. Returns the unknown values separately so the caller can
 * refuse them (`none` combined with anything else is one of them).
 */
export function requestedTokenCompanies(
  companyParameter: string,
  memberOf: string[],
  defaultCompanyId: string,
): { companies: string[]; refused: string[] } {
  const trimmed = companyParameter.trim();
  if (trimmed === '') return { companies: memberOf.includes(defaultCompanyId) ? [defaultCompanyId] : [], refused: [] };
  if (trimmed.toLowerCase() === NO_COMPANIES) return { companies: [], refused: [] };
  const values = trimmed.split(',').map((v) => v.trim());
  if (values.includes('*')) return { companies: [...memberOf], refused: values.filter((v) => v !== '*' && !memberOf.includes(v.toLowerCase())) };
  const refused = values.filter((v) => !isGuid(v) || !memberOf.includes(v.toLowerCase()));
  const companies = memberOf.filter((guid) => values.some((v) => v.toLowerCase() === guid));
  return { companies, refused };
}

/**
 * True when everything `companyIds` covers lies inside the effective company set: the test
 * for what a request may see or change of something spanning companies (an API client), so
 * that a request narrowed to one company never reaches what also acts for another.
 */
export function withinCompanies(companyIds: string[], effective: string[]): boolean {
  return companyIds.every((guid) => effective.includes(guid));
}
