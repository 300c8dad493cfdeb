import { Router, type Request, type Response } from 'express';
import { isServing, type BackendClients } from './clients.js';
import { methodNotAllowed } from './request-input.js';

/**
 * The gateway's health endpoints (docs/operations.md, "Health"):
 *   /livez   the process answers HTTP; no dependency is asked (a liveness probe restarts on failure,
 *            so a backend outage must never fail it).
 *   /readyz  the gateway itself can take requests: 200 until it begins to shut down, then 503. No
 *            backend is asked: while one is down the gateway stays in rotation and answers 503
 *            problem+json with Retry-After itself, instead of a load balancer's bare 503.
 *   /healthz the whole stack behind this gateway: both backends answer gRPC health SERVING within a
 *            short deadline, else 503 naming the one that does not (compose, scripts, monitoring).
 */
export const HEALTHZ_DEADLINE_MS = 2000;

export function healthRoutes(clients: BackendClients, grpcDeadlineMs: number, isDraining: () => boolean): Router {
  const router = Router();
  router.get('/livez', (_req, res) => {
    res.status(200).set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', (_req, res) => {
    const draining = isDraining();
    res.status(draining ? 503 : 200).set('Cache-Control', 'no-store').json({ status: draining ? 'draining' : 'ok' });
  });
  router.get('/healthz', async (_req: Request, res: Response) => {
    const deadline = Math.min(grpcDeadlineMs, HEALTHZ_DEADLINE_MS);
    const [auth, ticket] = await Promise.all([isServing(clients.authHealth, deadline), isServing(clients.ticketHealth, deadline)]);
    const body = { status: auth && ticket ? 'ok' : 'unavailable', services: { gateway: 'ok', auth: serving(auth), ticket: serving(ticket) } };
    res.status(auth && ticket ? 200 : 503).set('Cache-Control', 'no-store').json(body);
  });
  router.all(['/livez', '/readyz', '/healthz'], methodNotAllowed(['GET', 'HEAD']));
  return router;
}

const serving = (up: boolean) => (up ? 'SERVING' : 'NOT_SERVING');
