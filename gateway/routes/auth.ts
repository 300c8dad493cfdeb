import { Router, type Request, type Response } from 'express';
import type { FieldTable } from '../../lib/fields/kinds.js';
import { NEW_NAME_FIELDS, SIGN_UP_FIELDS } from '../../lib/fields/user.js';
import type { IssueTokenRequest, SignUpRequest } from '../../lib/gen/auth/v1/auth.js';
import { isServiceError, readErrorDetails, type FieldViolation } from '../../lib/grpc/errors.js';
import { authBackend } from '../backends.js';
import type { BodyKind } from '../body.js';
import { coerce } from '../field-input.js';
import { methodNotAllowed } from '../request-input.js';
import type { BackendClients } from '../clients.js';
import { apiClientJson, companyJson, userJson } from '../json.js';
import { invalidFields, problemFromGrpc, type Problem } from '../problem.js';
import type { Caller } from '../request-context.js';
import { noteRefusal } from '../request-log.js';

/** The token endpoints' RFC 6749 parameters: text, whatever was sent (a number as its digits). */
const str = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');

/**
 * The token endpoints' parameters, each a string or absent (RFC 6749: form parameters; a JSON
 * body's member of another type, such as `"company_id": []`, `false` or `{}`, or a parameter
 * sent twice, is no parameter we can read): the first one that is not, or undefined (issue 32,
 * item 15). A number is read as its digits, as before.
 */
function unreadableParameter(body: Record<string, unknown>, names: readonly string[]): string | undefined {
  return names.find((name) => body[name] !== undefined && typeof body[name] !== 'string' && typeof body[name] !== 'number');
}

const TOKEN_PARAMETERS = ['grant_type', 'username', 'password', 'company_id', 'refresh_token', 'client_id', 'client_secret', 'scope'] as const;
const REVOKE_PARAMETERS = ['token', 'token_type_hint', 'client_id', 'client_secret'] as const;

/**
 * A body of the auth API as its request message's text fields, by its table in
 * lib/fields/user.ts: each key sent is typed as every body is (gateway/field-input.ts: a
 * name of 0 "must be a string"), other keys are ignored; an absent required field is empty
 * and an absent optional one unset, for the service's value rules. A type error is refused
 * with a 422 here; the values are the service's to check.
 */
function textFields(table: FieldTable, req: Request, res: Response): Record<string, string | undefined> {
  const body = req.body as Record<string, unknown>;
  const fields: Record<string, string | undefined> = {};
  const violations: FieldViolation[] = [];
  for (const [field, def] of Object.entries(table)) {
    const coerced = Object.hasOwn(body, field) ? coerce(def, body[field], res.locals.bodyKind as BodyKind) : { value: null };
    if ('error' in coerced) violations.push({ field, description: coerced.error });
    else fields[field] = coerced.value === null ? (def.required ? '' : undefined) : String(coerced.value);
  }
  if (violations.length) throw invalidFields(violations);
  return fields;
}

/** REST face of the auth service, mounted under {auth_url}. */
export function authRoutes(clients: BackendClients, call: Caller): Router {
  const router = Router();
  const auth = authBackend(clients.auth, call);

  router.post('/users', async (req, res) => {
    const fields = textFields(SIGN_UP_FIELDS, req, res);
    const user = await auth.signUp(req, fields as unknown as SignUpRequest);
    res.status(201).json(userJson(user));
  });

  router.get('/users/me', async (req, res) => {
    res.json(userJson(await auth.getCurrentUser(req, {})));
  });

  router.get('/companies', async (req, res) => {
    const { companies } = await auth.listCompanies(req, {});
    res.json(companies.map(companyJson));
  });

  router.post('/companies', async (req, res) => {
    const fields = textFields(NEW_NAME_FIELDS, req, res);
    const company = await auth.createCompany(req, { name: fields.name! });
    res.status(201).json(companyJson(company));
  });

  router.post('/clients', async (req, res) => {
    const fields = textFields(NEW_NAME_FIELDS, req, res);
    const client = await auth.createApiClient(req, { name: fields.name! });
    res.status(201).set('Cache-Control', 'no-store').json({ ...apiClientJson(client), client_secret: client.client_secret });
  });

  router.get('/clients', async (req, res) => {
    const { clients } = await auth.listApiClients(req, {});
    res.json(clients.map(apiClientJson));
  });

  router.delete('/clients/:clientId', async (req, res) => {
    await auth.deleteApiClient(req, { client_id: req.params.clientId! });
    res.status(204).end();
  });

  // The public keys that verify access tokens (RFC 7517). Short-lived in caches: a retired key
  // leaves the set, and whoever verifies with a cached copy goes on accepting its tokens that long.
  router.get('/.well-known/jwks.json', async (req, res) => {
    const { keys } = await auth.getSigningKeys(req, {});
    res.set('Cache-Control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`).type('application/jwk-set+json').send(JSON.stringify({ keys }));
  });

  // The token endpoints answer in RFC 6749 form, never problem+json.
  router.post('/tokens', async (req, res) => {
    res.set(NO_STORE);
    const body = req.body as Record<string, unknown>;
    const unreadable = unreadableParameter(body, TOKEN_PARAMETERS);
    if (unreadable) {
      sendOAuthRequestError(res, { status: 400, detail: `${unreadable} must be a string, sent once.` });
      return;
    }
    const basic = basicCredentials(req);
    const request: IssueTokenRequest = {
      grant_type: str(body.grant_type),
      username: str(body.username),
      password: str(body.password),
      company_id: str(body.company_id),
      refresh_token: str(body.refresh_token),
      client_id: basic?.id ?? str(body.client_id),
      client_secret: basic?.secret ?? str(body.client_secret),
    };
    try {
      const token = await auth.issueToken(req, request);
      res.json({
        token_type: token.token_type,
        access_token: token.access_token,
        expires_in: token.expires_in,
        ...(token.refresh_token ? { refresh_token: token.refresh_token, refresh_token_expires_in: token.refresh_token_expires_in } : {}),
        info: { companies: token.info?.companies ?? [] },
      });
    } catch (err) {
      sendOAuthError(res, err);
    }
  });

  router.post('/tokens/revoke', async (req, res) => {
    res.set(NO_STORE);
    const body = req.body as Record<string, unknown>;
    const unreadable = unreadableParameter(body, REVOKE_PARAMETERS);
    if (unreadable) {
      sendOAuthRequestError(res, { status: 400, detail: `${unreadable} must be a string, sent once.` });
      return;
    }
    if (!str(body.token)) {
      sendOAuthRequestError(res, { status: 400, detail: 'token is required.' });
      return;
    }
    try {
      await auth.revokeToken(req, { token: str(body.token), token_type_hint: str(body.token_type_hint) });
      res.status(200).json({});
    } catch (err) {
      sendOAuthError(res, err);
    }
  });

  // Other methods of these paths: 405 with Allow, as on every route.
  router.all('/users', methodNotAllowed(['POST']));
  router.all('/users/me', methodNotAllowed(['GET', 'HEAD']));
  router.all(['/companies', '/clients'], methodNotAllowed(['GET', 'HEAD', 'POST']));
  router.all('/clients/:clientId', methodNotAllowed(['DELETE']));
  router.all(['/tokens', '/tokens/revoke'], methodNotAllowed(['POST']));
  router.all('/.well-known/jwks.json', methodNotAllowed(['GET', 'HEAD']));
  return router;
}

function basicCredentials(req: Request): { id: string; secret: string } | undefined {
  const match = /^Basic +([A-Za-z0-9+/=]+)\s*$/i.exec(req.get('authorization') ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const unescape = (v: string) => {
    try {
      return decodeURIComponent(v.replace(/\+/g, ' '));
    } catch {
      return v;
    }
  };
  return { id: unescape(decoded.slice(0, colon)), secret: unescape(decoded.slice(colon + 1)) };
}

/**
 * The token endpoints' own answer to a request they cannot read (its body or its headers):
 * RFC 6749 `invalid_request`, never problem+json. A 401 there means failed client
 * authentication, so a malformed header is a 400 like any other malformed request.
 */
export function sendOAuthRequestError(res: Response, problem: Problem): void {
  const answer = oauthRequestError(problem);
  noteRefusal(res, `${answer.error}: ${problem.detail}`);
  res.set(NO_STORE).status(answer.status).type('application/json').send(answer.body);
}

export const JWKS_MAX_AGE_SECONDS = 60;

export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

export function oauthRequestError(problem: Problem): { status: number; error: string; body: string } {
  // RFC 6749 5.2: a request the endpoint cannot use is 400 invalid_request, whatever the REST answer would be.
  // A request refused by the API's rate limit (429) is temporarily_unavailable, as the endpoint's own limits answer.
  const error = problem.status === 429 ? 'temporarily_unavailable' : 'invalid_request';
  return { status: problem.status === 401 || problem.status === 422 ? 400 : problem.status, error, body: JSON.stringify({ error, error_description: problem.detail }) };
}

/** Whether a request goes to a token endpoint (POST only), which answers in RFC 6749 form. */
export function tokenEndpoint(authPrefix: string): (method: string, path: string) => boolean {
  const paths = new Set([`${authPrefix}/tokens`, `${authPrefix}/tokens/revoke`]);
  return (method, path) => method === 'POST' && paths.has(path);
}

/** RFC 6749 section 5.2 error body. */
function sendOAuthError(res: Response, err: unknown): void {
  if (!isServiceError(err)) throw err;
  const details = readErrorDetails(err);
  const { status, detail } = problemFromGrpc(err);
  if (status >= 500) {
    const description = 'The authorization server is unavailable; try again shortly.';
    res.status(status === 504 ? 504 : 503).set('Retry-After', String(details.retryAfterSeconds ?? 1));
    noteRefusal(res, `temporarily_unavailable: ${description}`);
    res.json({ error: 'temporarily_unavailable', error_description: description });
    return;
  }
  const error = details.reason ?? (status === 401 ? 'invalid_client' : 'invalid_request');
  const httpStatus = error === 'invalid_client' ? 401 : status === 429 ? 429 : 400;
  // invalid_client: the client authenticates with HTTP Basic (or in the body), never with a bearer token.
  if (httpStatus === 401) res.set('WWW-Authenticate', 'Basic realm="ticketing"');
  if (httpStatus === 429) res.set('Retry-After', String(details.retryAfterSeconds ?? 1));
  noteRefusal(res, `${error}: ${detail}`);
  res.status(httpStatus).json({ error, error_description: detail });
}
