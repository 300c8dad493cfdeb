/**
 * The rules of services/webhooks/endpoint-lanes.ts (docs/webhooks.md "Isolation"): an
 * endpoint's first send always goes; more at once follow its window (one more per quick
 * delivery, halved by a slow one, one after a failure), the endpoint's limit and the host's
 * share; a pool per endpoint.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EndpointLanes, type LaneTicket } from '../../services/webhooks/endpoint-lanes.js';

const TIMEOUT_MS = 1000;
const QUICK = { delivered: true, durationMs: 10 };
const SLOW = { delivered: true, durationMs: 600 };
const FAILED = { delivered: false, durationMs: 1000 };

let lanes: EndpointLanes;
afterEach(() => lanes?.close());

/** Starts sends to `endpoint` until the lanes refuse one; the tickets. */
function startAll(endpoint: string, url = 'http://hooks.example.com/in'): LaneTicket[] {
  const tickets: LaneTicket[] = [];
  for (let ticket; (ticket = lanes.tryStart(endpoint, url)) && tickets.length < 1000; ) tickets.push(ticket);
  return tickets;
}

/** Quick deliveries until the window is as wide as it gets. */
function widen(endpoint: string, url?: string): void {
  for (let i = 0; i < 10; i++) for (const ticket of startAll(endpoint, url)) lanes.finish(ticket, QUICK);
}

describe('endpoint lanes', () => {
  it('one at a time until deliveries come back quickly, then one more per quick delivery, up to the limit', () => {
    lanes = new EndpointLanes({ perEndpoint: 4, perHost: 100, timeoutMs: TIMEOUT_MS });
    const first = startAll('e1');
    expect(first).toHaveLength(1);
    lanes.finish(first[0]!, QUICK);
    const second = startAll('e1');
    expect(second).toHaveLength(2);
    for (const ticket of second) lanes.finish(ticket, QUICK);
    expect(startAll('e1')).toHaveLength(4);
  });

  it('a failure narrows the window to one; a slow delivery halves it; a middling one leaves it', () => {
    lanes = new EndpointLanes({ perEndpoint: 8, perHost: 100, timeoutMs: TIMEOUT_MS });
    widen('e1');
    const eight = startAll('e1');
    expect(eight).toHaveLength(8);
    lanes.finish(eight.pop()!, SLOW);
    for (const ticket of eight) lanes.finish(ticket, { delivered: true, durationMs: 400 });
    const four = startAll('e1');
    expect(four).toHaveLength(4);
    lanes.finish(four.pop()!, FAILED);
    for (const ticket of four) lanes.finish(ticket, { delivered: true, durationMs: 400 });
    expect(startAll('e1')).toHaveLength(1);
  });

  it("the host's share bounds the sends beyond each endpoint's first, never another endpoint's first", () => {
    lanes = new EndpointLanes({ perEndpoint: 10, perHost: 3, timeoutMs: TIMEOUT_MS });
    widen('e1');
    const busy = startAll('e1');
    expect(busy).toHaveLength(4);
    // Same host, another endpoint: its first goes, nothing more.
    expect(startAll('e2')).toHaveLength(1);
    // Another host has a share of its own (its first and 3 more), untouched by this one's.
    widen('e3', 'https://other.example.com/');
    expect(startAll('e3', 'https://other.example.com/')).toHaveLength(4);
    // e1's window would allow 10; the host's share holds it at 4 until an extra ends.
    expect(lanes.tryStart('e1', 'http://hooks.example.com/in')).toBeUndefined();
    lanes.finish(busy.pop()!, { delivered: true, durationMs: 400 });
    expect(lanes.tryStart('e1', 'http://hooks.example.com/in')).toBeDefined();
  });

  it('each endpoint has its own connection pools, sized to its limit', () => {
    lanes = new EndpointLanes({ perEndpoint: 5, perHost: 100, timeoutMs: TIMEOUT_MS });
    const a = lanes.agent('e1', 'http:');
    expect(lanes.agent('e1', 'http:')).toBe(a);
    expect(lanes.agent('e2', 'http:')).not.toBe(a);
    expect(lanes.agent('e1', 'https:')).not.toBe(a);
    expect(a.maxSockets).toBe(5);
  });
});
