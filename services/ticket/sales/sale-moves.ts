import type { SaleMove } from '../../../lib/stock-moves.js';
import type { AuthenticatedCaller } from '../access/auth-check.js';

/**
 * The handlers of the moves of one kind of sale, one per row of SALE_MOVES (lib/stock-moves.ts),
 * each taking its own generated request message: a new move's row makes the compiler ask for
 * its handler here, and the gRPC server (rpc.ts) serves it under the name the row gives.
 */
export type SaleMoves<M> = Record<SaleMove, (caller: AuthenticatedCaller, request: never) => Promise<M>>;
