/** What never changes about a reservation: the ticket whose stock it holds and its company. */
export interface ReservationHome {
  guid: string;
  ticket_id: string;
  company_id: string;
}

/** How many homes a process keeps (about 200 bytes each). */
const KEPT = 100_000;

/**
 * The homes of the reservations this process made or moved lately, least recently used
 * forgotten first. A move needs its reservation's ticket before it can queue on that ticket's
 * batch; this saves that read for the confirm that follows a reserve. Safe to be stale: a
 * home never changes, and the batch reads the reservation itself under the lock (a
 * reservation gone since answers not found there).
 */
export class ReservationHomes {
  private readonly homes = new Map<string, ReservationHome>();

  remember({ guid, ticket_id, company_id }: ReservationHome): void {
    this.homes.delete(guid);
    this.homes.set(guid, { guid, ticket_id, company_id });
    if (this.homes.size > KEPT) this.homes.delete(this.homes.keys().next().value!);
  }

  /** The home of `guid` (a stored guid) if known and of one of `companyIds`. */
  find(companyIds: readonly string[], guid: string | undefined): ReservationHome | undefined {
    const home = guid === undefined ? undefined : this.homes.get(guid);
    return home && companyIds.includes(home.company_id) ? home : undefined;
  }
}

/**
 * The company of each ticket this process has seen lately (a ticket never changes company):
 * a move that takes stock is checked against the caller's companies before it queues on the
 * ticket, so another company's requests never wait in (or fill) its queue.
 */
export class TicketHomes {
  private readonly companies = new Map<string, string>();

  remember(ticketGuid: string, companyId: string): void {
    this.companies.delete(ticketGuid);
    this.companies.set(ticketGuid, companyId);
    if (this.companies.size > KEPT) this.companies.delete(this.companies.keys().next().value!);
  }

  company(ticketGuid: string): string | undefined {
    return this.companies.get(ticketGuid);
  }
}
