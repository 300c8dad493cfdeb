// PLACEHOLDER: ticket routes arrive with issue 3.
import { Router } from 'express';
import type { Logger } from '../../lib/logger.js';
import type { BackendClients } from '../clients.js';
import type { Caller } from '../request-context.js';

export function ticketRoutes(_clients: BackendClients, _call: Caller, _logger: Logger): Router {
  return Router();
}
