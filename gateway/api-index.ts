import { Router } from 'express';
import { methodNotAllowed } from './request-input.js';

/**
 * GET /: where a newcomer (or a script) goes next. Absolute paths on this host, so the links
 * hold whatever name the gateway is reached by.
 */
export function apiIndex(authPrefix: string): Router {
  const index = {
    name: 'Ticketing API',
    docs: '/docs',
    openapi: '/openapi.json',
    auth: authPrefix,
    token: `${authPrefix}/tokens`,
    health: '/healthz',
  };
  const router = Router();
  router.get('/', (_req, res) => {
    res.json(index);
  });
  router.all('/', methodNotAllowed(['GET', 'HEAD']));
  return router;
}
