import http from 'node:http';
import https from 'node:https';

/** An endpoint's kept-alive connections and its window are forgotten this long after its last send. */
const IDLE_MS = 60_000;

export interface LaneLimits {
  /** Sends in flight at once to one endpoint (WEBHOOK_CONCURRENCY_PER_ENDPOINT). */
  perEndpoint: number;
  /** Sends in flight at once to one host:port beyond each endpoint's first (WEBHOOK_CONCURRENCY_PER_HOST). */
  perHost: number;
  /** An attempt's deadline (WEBHOOK_TIMEOUT_MS): the window grows while answers come well within it. */
  timeoutMs: number;
}

interface Lane {
  agents: Partial<Record<'http:' | 'https:', http.Agent>>;
  /** How many sends may be in flight now: 1 after a failure, halved after a slow answer, one more after a quick delivery, up to the limit. */
  window: number;
  inFlight: number;
  lastUsed: number;
}

/** A send that was let through: hand it back to `finish`. */
export interface LaneTicket {
  endpoint: string;
  /** The host's extra sends count this one (it was not the endpoint's only one in flight). */
  hostKey: string | undefined;
}

/**
 * What keeps one endpoint's slowness from delaying another's deliveries (docs/webhooks.md
 * "Isolation"): each endpoint has its own connection pool, as large as its window can grow,
 * so a send never waits for a socket another endpoint holds (and an attempt's deadline runs
 * from the send); an endpoint's first send in flight is always let through; more in flight
 * (a receiver that answers, but slowly) are bounded per endpoint by a window that grows by one
 * with each delivery answered within a quarter of the deadline, is halved by one that took more
 * than half of it, and falls back to one after a failure (a receiver that does not answer ties
 * up one connection, not the limit; more sends at once never push answers towards the
 * deadline), and per host, so many endpoints on one host cannot flood it. Per worker process:
 * several workers each have their own.
 */
export class EndpointLanes {
  private readonly lanes = new Map<string, Lane>();
  private readonly extrasByHost = new Map<string, number>();

  constructor(private readonly limits: LaneLimits) {}

  /** A ticket when the endpoint may start one more send now (its URL names the host it counts against), undefined when it must wait for one of its own. */
  tryStart(endpoint: string, url: string): LaneTicket | undefined {
    const lane = this.lane(endpoint);
    lane.lastUsed = Date.now();
    if (lane.inFlight === 0) {
      lane.inFlight++;
      return { endpoint, hostKey: undefined };
    }
    if (lane.inFlight >= Math.min(lane.window, this.limits.perEndpoint)) return undefined;
    const hostKey = hostKeyOf(url);
    const extras = this.extrasByHost.get(hostKey) ?? 0;
    if (extras >= this.limits.perHost) return undefined;
    this.extrasByHost.set(hostKey, extras + 1);
    lane.inFlight++;
    return { endpoint, hostKey };
  }

  /** The send of `ticket` ended: its outcome moves the endpoint's window. */
  finish(ticket: LaneTicket, outcome: { delivered: boolean; durationMs: number }): void {
    const lane = this.lane(ticket.endpoint);
    lane.inFlight--;
    lane.lastUsed = Date.now();
    if (!outcome.delivered) lane.window = 1;
    else if (outcome.durationMs > this.limits.timeoutMs / 2) lane.window = Math.max(1, Math.floor(lane.window / 2));
    else if (outcome.durationMs < this.limits.timeoutMs / 4) lane.window = Math.min(lane.window + 1, this.limits.perEndpoint);
    if (ticket.hostKey === undefined) return;
    const extras = (this.extrasByHost.get(ticket.hostKey) ?? 1) - 1;
    if (extras > 0) this.extrasByHost.set(ticket.hostKey, extras);
    else this.extrasByHost.delete(ticket.hostKey);
  }

  /** The endpoint's own keep-alive pool for a scheme. */
  agent(endpoint: string, protocol: 'http:' | 'https:'): http.Agent {
    const lane = this.lane(endpoint);
    const options = { keepAlive: true, maxSockets: this.limits.perEndpoint };
    return (lane.agents[protocol] ??= protocol === 'https:' ? new https.Agent(options) : new http.Agent(options));
  }

  /** Forgets endpoints idle for a while (their connections closed). */
  prune(now = Date.now()): void {
    for (const [endpoint, lane] of this.lanes) {
      if (lane.inFlight > 0 || now - lane.lastUsed < IDLE_MS) continue;
      for (const agent of Object.values(lane.agents)) agent.destroy();
      this.lanes.delete(endpoint);
    }
  }

  /** Closes every kept connection (the worker stops). */
  close(): void {
    this.prune(Number.POSITIVE_INFINITY);
  }

  private lane(endpoint: string): Lane {
    let lane = this.lanes.get(endpoint);
    if (!lane) this.lanes.set(endpoint, (lane = { agents: {}, window: 1, inFlight: 0, lastUsed: Date.now() }));
    return lane;
  }
}

/** host:port of a URL (default ports filled in), lower case; the URL itself when it does not parse (the send then refuses it). */
function hostKeyOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname.toLowerCase()}:${parsed.port || (parsed.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return url;
  }
}
