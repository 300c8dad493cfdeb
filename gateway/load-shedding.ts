import type { NextFunction, Request, Response } from 'express';
import type { EventLoopLag } from '../lib/event-loop-lag.js';
import { SERVER_BUSY } from '../lib/stock-conflicts.js';
import { sendProblem, type Problem } from './problem.js';

/** How much of the lag the process must have used in CPU time in the last second for the lag to be its own doing. */
export const SHED_MIN_OWN_CPU_SHARE = 0.5;

/**
 * Refuses a new sale (a reservation, an order) at once while this gateway's event loop runs at
 * least `thresholdMs` late because of its own work: the process itself used at least half of
 * `thresholdMs` in CPU time in the last second (SHED_MIN_OWN_CPU_SHARE; half, so that a gateway
 * overloaded on a host that also runs other programs, and gets only part of a core, still
 * sheds). Past that, every request already waits that long in the loop before anyone
 * looks at it, and a sale let in now would be answered after its deadline, or hold the loop
 * while the confirms, releases and reads of sales already made wait behind it. Those are never
 * refused here (docs/scaling.md, "Shedding load"). A loop late while the process used next to no
 * CPU was starved by other programs on the host: refusing its sales frees nothing, so it sheds
 * nothing and a lone buyer is served (issue 32, item 12). `thresholdMs` 0: never.
 */
export function admitNewSales(lag: EventLoopLag | undefined, thresholdMs: number) {
  if (!lag || !thresholdMs) return (_req: Request, _res: Response, next: NextFunction) => next();
  return (_req: Request, res: Response, next: NextFunction) => {
    const lagMs = lag.ms();
    if (lagMs < thresholdMs || lag.ownCpuMs() < SHED_MIN_OWN_CPU_SHARE * thresholdMs) return next();
    sendProblem(res, serverBusy(lagMs));
  };
}

/** The refusal: 503 + Retry-After of about twice the lag, so the buyers who come back spread out. */
function serverBusy(lagMs: number): Problem {
  return {
    status: 503,
    detail: 'The server is too busy to take a new sale right now; nothing was reserved, try again after Retry-After.',
    retryAfterSeconds: Math.max(1, Math.ceil((2 * lagMs) / 1000)),
    members: { code: SERVER_BUSY },
  };
}
