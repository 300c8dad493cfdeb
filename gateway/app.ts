import express, { type NextFunction, type Request, type Response } from 'express';
import type { Config } from '../lib/config.js';
import type { EventLoopLag } from '../lib/event-loop-lag.js';
import type { Logger } from '../lib/logger.js';
import { parseBody, refuseBody } from './body.js';
import { apiIndex } from './api-index.js';
import { docsPage } from './openapi/docs-page.js';
import { openApiDocument } from './openapi/document.js';
import type { BackendClients } from './clients.js';
import { healthRoutes } from './health-routes.js';
import { admitNewSales } from './load-shedding.js';
import { bearerTokenOf, missingTokenError } from '../lib/grpc/caller.js';
import { isServiceError } from '../lib/grpc/errors.js';
import { ProblemError, problemFromGrpc, sendProblem, type Problem } from './problem.js';
import { caller, forwardingProblem, UnforwardableRequest } from './request-context.js';
import { rateLimits } from './rate-limits.js';
import { requestLog } from './request-log.js';
import { methodNotAllowed } from './request-input.js';
import type { RateLimitStore } from '../lib/rate-limit/redis-store.js';
import { CouponTries } from './coupon-tries.js';
import { authRoutes, sendOAuthRequestError, tokenEndpoint } from './routes/auth.js';
import { eventRoutes } from './routes/events.js';
import { orderRoutes } from './routes/orders.js';
import { reservationRoutes } from './routes/reservations.js';
import { ticketRoutes } from './routes/tickets.js';
import { webhookRoutes } from './routes/webhooks.js';
import { couponRoutes } from './routes/coupons.js';

export interface AppOptions {
  /** Where the API's rate limits are counted (Redis, shared by replicas); without one, in this process. */
  rateLimitStore?: RateLimitStore;
  /** True once the gateway has begun to shut down (its /readyz then answers 503). */
  isDraining?: () => boolean;
  /** How late this process's event loop runs; without it, new sales are never shed (gateway/load-shedding.ts). */
  loopLag?: EventLoopLag;
}

/** The HTTP gateway: parses HTTP, makes one gRPC call, maps the answer back. No business rules. */
export function createApp(config: Config, clients: BackendClients, logger: Logger, { rateLimitStore, isDraining = () => false, loopLag }: AppOptions = {}) {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxy(config.TRUST_PROXY));
  app.set('etag', false);

  app.use(requestLog(logger));

  // The token endpoints answer every error in RFC 6749 form, unreadable requests included.
  const isTokenRequest = tokenEndpoint(config.AUTH_PATH_PREFIX);
  const pathOf = (req: Request) => req.originalUrl.split('?')[0]!;
  const respondFor = (req: Request): ((res: Response, problem: Problem) => void) => (isTokenRequest(req.method, pathOf(req)) ? sendOAuthRequestError : sendProblem);
  const hasBody = (req: Request) => ['POST', 'PUT', 'PATCH'].includes(req.method);

  // Before every route, so every answer (a 404 too) carries the RateLimit fields; a refused request's body is never read.
  app.use(rateLimits(config, rateLimitStore, logger, (req, res, problem) => (hasBody(req) ? refuseBody(req, res, () => respondFor(req)(res, problem)) : respondFor(req)(res, problem))));

  app.use(healthRoutes(clients, config.GRPC_DEADLINE_MS, isDraining));

  const document = openApiDocument({ authPrefix: config.AUTH_PATH_PREFIX });
  // A router's all() is one route of its own (app.all() would add one per method).
  const openapi = express.Router();
  openapi.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  openapi.all('/openapi.json', methodNotAllowed(['GET', 'HEAD']));
  app.use(openapi);
  app.use(docsPage());
  app.use(apiIndex(config.AUTH_PATH_PREFIX));

  const call = caller(config.GRPC_DEADLINE_MS, config.INTERNAL_API_KEY);
  // Sign-up and the token endpoints are the only routes that take a body without a bearer token.
  const isPublic = (req: Request) => isTokenRequest(req.method, pathOf(req)) || (req.method === 'POST' && pathOf(req) === `${config.AUTH_PATH_PREFIX}/users`);

  // Headers that cannot be forwarded are answered before anything else (and before the body is read).
  const checkForwarding = (req: Request, res: Response, next: NextFunction) => {
    const problem = forwardingProblem(req);
    return problem ? refuseBody(req, res, () => respondFor(req)(res, problem)) : next();
  };
  const body = parseBody(config.BODY_LIMIT_BYTES);
  const tokenBody = parseBody(config.BODY_LIMIT_BYTES, sendOAuthRequestError);
  // Without a bearer token such a request is answered 401 before its body costs a read (docs/ticket-api.md, Limits).
  const tokenBeforeBody = (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req) || isPublic(req) || bearerTokenOf(req.get('authorization'))) return next();
    refuseBody(req, res, () => sendProblem(res, { status: 401, detail: missingTokenError().message }));
  };
  const parseWhenSent = (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req)) return next();
    return (respondFor(req) === sendOAuthRequestError ? tokenBody : body)(req, res, next);
  };

  // Express resets req.baseUrl once a router is done; keep the mount point for the route label.
  const rememberPrefix = (req: Request, res: Response, next: NextFunction) => {
    res.locals.routePrefix = req.baseUrl;
    next();
  };
  app.use(config.AUTH_PATH_PREFIX, rememberPrefix, checkForwarding, tokenBeforeBody, parseWhenSent, authRoutes(clients, call));
  const admitSale = admitNewSales(loopLag, config.SHED_NEW_SALES_LAG_MS);
  app.use(checkForwarding, tokenBeforeBody, parseWhenSent, eventRoutes(clients, call), ticketRoutes(clients, call, logger), reservationRoutes(clients, call, admitSale), orderRoutes(clients, call, admitSale, new CouponTries(rateLimitStore)), webhookRoutes(clients, call), couponRoutes(clients, call));

  app.use((req, res) => sendProblem(res, { status: 404, detail: `No route for ${req.method} ${req.path}.` }));

  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof UnforwardableRequest) return respondFor(req)(res, err.problem);
    if (err instanceof ProblemError) return sendProblem(res, err.problem);
    if (isServiceError(err)) {
      const problem = problemFromGrpc(err);
      if (problem.status >= 500) logger.warn({ requestId: res.locals.requestId, path: req.path, code: err.code }, 'backend call failed');
      return sendProblem(res, problem);
    }
    const status = (err as { status?: number }).status;
    if (status === 400 || status === 413 || status === 415) return sendProblem(res, { status, detail: 'The request could not be read.' });
    logger.error({ requestId: res.locals.requestId, path: req.path, err }, 'unhandled gateway error');
    sendProblem(res, { status: 500, detail: 'Internal error.' });
  });

  return app;
}

function trustProxy(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false' || value === '') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}
