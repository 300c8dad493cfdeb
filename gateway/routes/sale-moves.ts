import type { Request, Response, Router } from 'express';
import { SALE_MOVES, type SaleMove } from '../../lib/stock-moves.js';
import type { SaleMoveCall } from '../backends.js';
import { idempotencyKey, methodNotAllowed } from '../request-input.js';
import { param } from '../resource-routes.js';

/**
 * POST {path}/:guid/<move> for every move of an existing sale (lib/stock-moves.ts SALE_MOVES):
 * the body by `bodyOf`, the Idempotency-Key as request_id, the backend call of the move, the
 * sale as JSON; 405 for other methods.
 */
export function saleMoveRoutes<M>(
  router: Router,
  path: '/reservation' | '/order',
  moves: Record<SaleMove, SaleMoveCall<M>>,
  bodyOf: (move: SaleMove, req: Request, res: Response) => Record<string, unknown>,
  toJson: (sale: M) => unknown,
): void {
  for (const move of SALE_MOVES) {
    router.post(`${path}/:guid/${move}`, async (req, res) => {
      const requestId = idempotencyKey(req);
      res.json(toJson(await moves[move](req, { ...bodyOf(move, req, res), guid: param(req, 'guid'), request_id: requestId })));
    });
    router.all(`${path}/:guid/${move}`, methodNotAllowed(['POST']));
  }
}
