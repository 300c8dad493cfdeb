import type { Paths } from '../operation.js';

const API_CLIENTS_BY_USERS = 'Only a user\'s own token (password or refresh_token grant) manages API clients; an API client\'s token gets 403.';

/** Accounts, tokens, companies and API clients (the auth service), under the auth path prefix. */
export function authPaths(authPrefix: string): Paths {
  return {
    [`${authPrefix}/users`]: {
      post: {
        tag: 'auth',
        operationId: 'signUp',
        summary: 'Sign up',
        description: 'Creates the user and a company that becomes its default_company_id.',
        body: 'SignUp',
        ok: { status: 201, schema: 'User' },
        errors: [400, 403, 409, 413, 415, 422, 503],
        public: true,
      },
    },
    [`${authPrefix}/users/me`]: {
      get: { tag: 'auth', operationId: 'getCurrentUser', summary: 'The token\'s user (also a quick token check)', description: 'The user the token was issued to; 401 when the token is missing, expired or revoked.', ok: { status: 200, schema: 'User' }, errors: [400, 401, 503], parameters: ['Company'] },
    },
    [`${authPrefix}/companies`]: {
      get: {
        tag: 'auth',
        operationId: 'listCompanies',
        summary: 'Companies the request is authorized for (after the Company header)',
        description: 'The companies the token was issued for, narrowed by the Company header. A company created after the token was issued needs a new token (company_id=*).',
        ok: { status: 200, schema: 'Company', array: true },
        errors: [400, 401, 503],
        parameters: ['Company'],
      },
      post: {
        tag: 'auth',
        operationId: 'createCompany',
        summary: 'Create a company; the caller becomes a member (a new token covers it)',
        description: 'The caller becomes a member; the current token does not cover the new company, a new token (company_id=* or its GUID) does.',
        body: 'NewCompany',
        ok: { status: 201, schema: 'Company' },
        errors: [400, 401, 413, 415, 422, 503],
      },
    },
    [`${authPrefix}/clients`]: {
      post: {
        tag: 'auth',
        operationId: 'createApiClient',
        summary: 'Create API client credentials for the client_credentials grant, limited to the request\'s companies',
        description: API_CLIENTS_BY_USERS,
        body: 'NewApiClient',
        ok: { status: 201, schema: 'ApiClientCreated' },
        errors: [400, 401, 403, 413, 415, 422, 503],
        parameters: ['Company'],
      },
      get: {
        tag: 'auth',
        operationId: 'listApiClients',
        summary: 'The caller\'s API clients inside the request\'s companies (without secrets)',
        description: API_CLIENTS_BY_USERS,
        ok: { status: 200, schema: 'ApiClient', array: true },
        errors: [400, 401, 403, 503],
        parameters: ['Company'],
      },
    },
    [`${authPrefix}/clients/{clientId}`]: {
      delete: {
        tag: 'auth',
        operationId: 'deleteApiClient',
        summary: 'Revoke an API client and every session it opened',
        description: `${API_CLIENTS_BY_USERS} A client acting for a company outside the request's companies answers 404.`,
        ok: { status: 204, schema: '' },
        errors: [400, 401, 403, 404, 503],
        parameters: ['clientId', 'Company'],
      },
    },
    [`${authPrefix}/tokens`]: {
      post: {
        tag: 'auth',
        operationId: 'issueToken',
        summary: 'OAuth2 token endpoint (password, refresh_token, client_credentials)',
        description: 'Errors are RFC 6749 bodies ({error, error_description}), never problem details. Rate limited per account and per address.',
        body: 'TokenRequest',
        ok: { status: 200, schema: 'TokenResponse' },
        errors: [],
        public: true,
      },
    },
    [`${authPrefix}/tokens/revoke`]: {
      post: {
        tag: 'auth',
        operationId: 'revokeToken',
        summary: 'Revoke an access or refresh token and its session (RFC 7009)',
        description: 'Ends the whole session the token belongs to: its access and refresh tokens stop working at once. Answers 200 for an unknown or already revoked token too (RFC 7009).',
        body: 'RevokeRequest',
        ok: { status: 200, schema: 'object' },
        errors: [],
        public: true,
      },
    },
    [`${authPrefix}/.well-known/jwks.json`]: {
      get: {
        tag: 'auth',
        operationId: 'getSigningKeys',
        summary: 'The public keys that verify access tokens (JWK Set, RFC 7517)',
        description:
          'Access tokens are ES256 JWTs whose header names their key (kid). The set holds the key that signs now and every other key whose tokens are still accepted; a key missing from it no longer verifies anything. Cacheable for a minute; fetch it again for a kid you do not know.',
        ok: { status: 200, schema: 'JwkSet', contentType: 'application/jwk-set+json' },
        errors: [503],
        public: true,
      },
    },
  };
}
