import { isIPv6 } from 'node:net';

/** The IPv6 prefix one client is taken to hold: a /64 is what a home or a phone gets, and privacy extensions rotate the rest. */
export const DEFAULT_IPV6_PREFIX_LENGTH = 64;

/**
 * The part of a client address that stays the same for one client: an IPv4 address itself,
 * an IPv6 address's first `ipv6PrefixLength` bits (written as its groups, the rest cut, e.g.
 * `2001:db8:1:2::/64`), an IPv4-mapped IPv6 address as IPv4. Anything else is returned as is.
 * Used wherever addresses are counted or remembered: the per-address limits of the gateway and
 * the token endpoint (RATE_LIMIT_IPV6_PREFIX_LENGTH) and where an account signed in from (always
 * a /64, so a changed setting does not forget them).
 */
/** An IPv6 address without its zone id (`fe80::1%eth0` -> `fe80::1`). */
export const withoutZone = (address: string): string => address.split('%', 1)[0]!;

export function addressGroup(address: string, ipv6PrefixLength = DEFAULT_IPV6_PREFIX_LENGTH): string {
  if (!isIPv6(address)) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  const [head = '', tail = ''] = withoutZone(address).split('::');
  // A trailing dotted IPv4 part is two groups; they lie beyond any prefix of 96 bits or less.
  const groups = (part: string) => (part ? part.split(':').flatMap((g) => (g.includes('.') ? ipv4Groups(g) : [parseInt(g, 16)])) : []);
  const [h, t] = [groups(head), groups(tail)];
  const full = address.includes('::') ? [...h, ...Array<number>(8 - h.length - t.length).fill(0), ...t] : h;
  const kept = Math.ceil(ipv6PrefixLength / 16);
  const masked = full.slice(0, kept).map((group, i) => {
    const bits = Math.min(16, ipv6PrefixLength - i * 16);
    return group & ((0xffff << (16 - bits)) & 0xffff);
  });
  return `${masked.map((g) => g.toString(16)).join(':')}::/${ipv6PrefixLength}`;
}

function ipv4Groups(dotted: string): number[] {
  const [a = 0, b = 0, c = 0, d = 0] = dotted.split('.').map(Number);
  return [(a << 8) | b, (c << 8) | d];
}
