// PLACEHOLDER: event routes arrive with issue 3.
import { Router } from 'express';
import type { BackendClients } from '../clients.js';
import type { Caller } from '../request-context.js';

export function eventRoutes(_clients: BackendClients, _call: Caller): Router {
  return Router();
}
