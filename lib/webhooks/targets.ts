import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { withoutZone } from '../address-group.js';
import { URL_FORM_RULE } from './url-pattern.js';

/**
 * Where webhooks may go (PRODUCT.md 10, docs/webhooks.md "Safety"): http or https, and
 * never an address inside the operator's network (loopback, private, shared, link-local,
 * metadata, unspecified, multicast, reserved; IPv4 and IPv6, IPv4 inside IPv6 too),
 * unless the operator allows private targets. Checked when an endpoint is saved and again
 * at every delivery, after DNS, on the address actually connected to.
 */

const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
] as const) {
  blocked.addSubnet(net, bits, 'ipv4');
}
// ::1 and :: are in ::/96, read as IPv4 below (0.0.0.1 and 0.0.0.0, refused).
for (const [net, bits] of [
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['3fff::', 20],
  ['100::', 64],
  ['2001:2::', 48],
  ['2001:20::', 28],
  // Whole ranges whose IPv4 is not simply read off the address: Teredo (the client's IPv4 is
  // obfuscated, the server's sits in the middle) and local-use NAT64 (where the IPv4 sits
  // depends on the operator's prefix length, RFC 6052).
  ['2001::', 32],
  ['64:ff9b:1::', 48],
] as const) {
  blocked.addSubnet(net, bits, 'ipv6');
}

/** An IPv6 address (zone id allowed) as its eight 16-bit groups, a trailing dotted IPv4 read as two. */
function ipv6Groups(address: string): number[] {
  const text = withoutZone(address).toLowerCase();
  const parse = (part: string) => {
    if (part === '') return [];
    return part.split(':').flatMap((group) => {
      if (!group.includes('.')) return [parseInt(group, 16)];
      const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number];
      return [(a << 8) | b, (c << 8) | d];
    });
  };
  const [head, tail] = text.split('::') as [string, string | undefined];
  if (tail === undefined) return parse(head);
  const [before, after] = [parse(head), parse(tail)];
  return [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
}

const dottedQuad = (high: number, low: number) => [high >> 8, high & 255, low >> 8, low & 255].join('.');

/**
 * The IPv4 address an IPv6 one carries, if any, so that the IPv4 rules apply to it:
 * IPv4-compatible ::/96 (:: and ::1 among them, read as 0.0.0.0 and 0.0.0.1, both refused),
 * IPv4-mapped ::ffff:0:0/96, IPv4-translated ::ffff:0:0:0/96, NAT64 64:ff9b::/96 (the IPv4 in
 * the last 32 bits) and 6to4 2002::/16 (in bits 16-47).
 */
function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  const zeros = (from: number, to: number) => g.slice(from, to).every((group) => group === 0);
  if (zeros(0, 6)) return dottedQuad(g[6]!, g[7]!);
  if (zeros(0, 5) && g[5] === 0xffff) return dottedQuad(g[6]!, g[7]!);
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return dottedQuad(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return dottedQuad(g[6]!, g[7]!);
  if (g[0] === 0x2002) return dottedQuad(g[1]!, g[2]!);
  return undefined;
}

/** True for an address a webhook must not reach (without the operator's permission). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const v4 = embeddedIpv4(address);
  if (v4) return blocked.check(v4, 'ipv4');
  return blocked.check(withoutZone(address), 'ipv6');
}

/** A URL's host as an address or name (brackets of an IPv6 literal removed). */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Whether the URL as written has a userinfo part, an empty one too (`http://@host/`, which the URL parser drops). */
const hasUserinfo = (text: string, url: URL) => url.username !== '' || url.password !== '' || /^[a-z][a-z0-9+.-]*:[/\\]*[^/\\?#]*@/i.test(text.trim());

export const URL_RULE =
  'must be an http or https URL of a public host: loopback, private, link-local and metadata addresses are refused (an operator whose receivers are on a network of their own allows them with WEBHOOK_ALLOW_PRIVATE_TARGETS=true)';

/** The URL's own problem (syntax, scheme, a literal forbidden address), without DNS. */
export function urlProblem(text: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return URL_FORM_RULE;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (hasUserinfo(text, url)) return 'must not carry a user name or password';
  if (allowPrivate) return undefined;
  // A trailing dot (a fully qualified name) names the same host: `localhost.` is `localhost`.
  const host = hostOf(url).toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal') || host.endsWith('.local')) return URL_RULE;
  if (isIP(host) && isForbiddenAddress(host)) return URL_RULE;
  return undefined;
}

export interface ResolvedTarget {
  url: URL;
  /** The checked address to connect to. */
  address: string;
  family: 4 | 6;
}

export class TargetRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefused';
  }
}

/**
 * Resolves the URL's host and checks every address it has: one forbidden address refuses
 * the target (so a name cannot mix a public and a private answer). The caller connects to
 * the returned address, never resolving again, so DNS rebinding cannot slip through.
 */
export async function resolveTarget(text: string, allowPrivate: boolean, timeoutMs = 5000): Promise<ResolvedTarget> {
  const problem = urlProblem(text, allowPrivate);
  if (problem) throw new TargetRefused(`url ${problem}`);
  const url = new URL(text);
  const host = hostOf(url);
  const literal = isIP(host);
  if (literal) return { url, address: host, family: literal as 4 | 6 };
  let timer: NodeJS.Timeout | undefined;
  const answers = await Promise.race([
    lookup(host, { all: true, verbatim: true }),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TargetRefused('DNS lookup timed out')), timeoutMs);
    }),
  ]).finally(() => clearTimeout(timer));
  if (answers.length === 0) throw new TargetRefused('the host has no address');
  if (!allowPrivate && answers.some((answer) => isForbiddenAddress(answer.address))) throw new TargetRefused('the host resolves to a private address');
  const first = answers[0]!;
  return { url, address: first.address, family: first.family as 4 | 6 };
}
