import { Router, type Request, type Response } from 'express';
import { isServing, type BackendClients } from './clients.js';
import { methodNotAllowed } from './request-input.js';

/**
 * The gateway's health endpoints (docs/operations.md, "Health"):
 *   /livez   the process answers HTTP; no dependency is asked (a liveness probe restarts on failure,
 *            so a backend outage must never fail it).
 *   /readyz  both backends answer gRPC health SERVING within a short deadline, else 503 (a
 *            readiness probe takes the gateway out of rotation, without restarting it).
 *   /healthz the same check as /readyz with the longer deadline it always had (compose, scripts).
 */
export const READYZ_DEADLINE_MS = 1000;
const HEALTHZ_DEADLINE_MS = 2000;

export function healthRoutes(clients: BackendClients, grpcDeadlineMs: number): Router {
  const router = Router();
  const readiness = (deadlineMs: number) => async (_req: Request, res: Response) => {
    const deadline = Math.min(grpcDeadlineMs, deadlineMs);
    const [auth, ticket] = await Promise.all([isServing(clients.authHealth, deadline), isServing(clients.ticketHealth, deadline)]);
    const body = { status: auth && ticket ? 'ok' : 'unavailable', services: { gateway: 'ok', auth: serving(auth), ticket: serving(ticket) } };
    res.status(auth && ticket ? 200 : 503).set('Cache-Control', 'no-store').json(body);
  };
  router.get('/livez', (_req, res) => {
    res.status(200).set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', readiness(READYZ_DEADLINE_MS));
  router.get('/healthz', readiness(HEALTHZ_DEADLINE_MS));
  router.all(['/livez', '/readyz', '/healthz'], methodNotAllowed(['GET', 'HEAD']));
  return router;
}

const serving = (up: boolean) => (up ? 'SERVING' : 'NOT_SERVING');
