/**
 * The target check of lib/webhooks/targets.ts over the forms an address inside the operator's
 * network can take: IPv4, IPv6, and IPv4 inside IPv6 (mapped, compatible, translated, 6to4,
 * NAT64), written dotted or in hex (the URL parser writes `[::127.0.0.1]` as `[::7f00:1]`).
 */
import { describe, expect, it } from 'vitest';
import { isForbiddenAddress, urlProblem } from '../../lib/webhooks/targets.js';

/** One IPv4 address of each forbidden kind. */
const FORBIDDEN_V4 = {
  loopback: '127.0.0.1',
  'loopback (other)': '127.255.0.9',
  'private 10/8': '10.1.2.3',
  'private 172.16/12': '172.16.5.4',
  'private 192.168/16': '192.168.1.1',
  'shared 100.64/10': '100.64.0.1',
  'link-local': '169.254.1.1',
  'cloud metadata': '169.254.169.254',
  unspecified: '0.0.0.0',
  'this network': '0.1.2.3',
  multicast: '224.0.0.1',
  reserved: '240.0.0.1',
  broadcast: '255.255.255.255',
  documentation: '192.0.2.1',
  benchmarking: '198.18.0.1',
  'IETF protocol assignments': '192.0.0.8',
};

const PUBLIC_V4 = ['8.8.8.8', '1.1.1.1', '93.184.215.14'];

const hexGroups = (v4: string) => {
  const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
};

/** Every way this table knows to write an IPv4 address, as an address and as IPv6 carrying it. */
function forms(v4: string): Record<string, string> {
  const hex = hexGroups(v4);
  return {
    v4,
    'v4-mapped': `::ffff:${v4}`,
    'v4-mapped hex': `::ffff:${hex}`,
    'v4-mapped, written out': `0:0:0:0:0:ffff:${hex}`,
    'v4-compatible': `::${v4}`,
    'v4-compatible hex': `::${hex}`,
    'v4-translated': `::ffff:0:${v4}`,
    'v4-translated hex': `::ffff:0:${hex}`,
    '6to4': `2002:${hex}::1`,
    '6to4 with a subnet': `2002:${hex}:5:0:0:0:1`,
    NAT64: `64:ff9b::${v4}`,
    'NAT64 hex': `64:ff9b::${hex}`,
  };
}

const FORBIDDEN_V6 = {
  loopback: '::1',
  unspecified: '::',
  'link-local': 'fe80::1',
  'link-local with a zone': 'fe80::1%eth0',
  'unique-local': 'fc00::1',
  'AWS metadata (unique-local)': 'fd00:ec2::254',
  'site-local (deprecated)': 'fec0::1',
  multicast: 'ff02::1',
  documentation: '2001:db8::1',
  'documentation 3fff::/20': '3fff:0:1::1',
  discard: '100::1',
  benchmarking: '2001:2::1',
  ORCHIDv2: '2001:20::1',
  'Teredo (the whole range)': '2001:0:4136:e378:8000:63bf:3fff:fdd2',
  'Teredo of a public server and client': '2001:0:808:808:0:0:f7f7:f7f7',
  'local-use NAT64 (the whole range)': '64:ff9b:1::a00:1',
  'local-use NAT64 of a public address': '64:ff9b:1:808:808::',
};

const PUBLIC_V6 = ['2606:4700:4700::1111', '2001:4860:4860::8888', '2a00:1450:4001:81c::200e'];

describe('isForbiddenAddress', () => {
  for (const [kind, v4] of Object.entries(FORBIDDEN_V4)) {
    it.each(Object.entries(forms(v4)))(`refuses ${kind} ${v4} written %s (%s)`, (_form, address) => {
      expect(isForbiddenAddress(address)).toBe(true);
    });
  }
  it.each(Object.entries(FORBIDDEN_V6))('refuses IPv6 %s (%s)', (_kind, address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });
  for (const v4 of PUBLIC_V4) {
    it.each(Object.entries(forms(v4)))(`allows the public ${v4} written %s (%s)`, (_form, address) => {
      expect(isForbiddenAddress(address)).toBe(false);
    });
  }
  it.each(PUBLIC_V6)('allows the public IPv6 %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
  it.each(['', 'example.com', '999.1.1.1', '::ffff:1::2::3'])('refuses %j, not an address', (text) => {
    expect(isForbiddenAddress(text)).toBe(true);
  });
});

describe('urlProblem: the literal addresses as the URL parser rewrites them', () => {
  it.each([
    'http://[::127.0.0.1]/',
    'http://[::ffff:0:127.0.0.1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[2002:7f00:1::]/',
    'http://[2002:a9fe:a9fe::1]/',
    'http://[64:ff9b::169.254.169.254]/',
    'http://[64:ff9b:1::a00:1]/',
    'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
    'http://[fe80::1]/',
    'http://0x7f.1/',
    'http://2130706433/',
  ])('refuses %s', (url) => {
    expect(urlProblem(url, false)).toBeDefined();
    expect(urlProblem(url, true)).toBeUndefined();
  });
  it.each(['http://8.8.8.8/', 'https://[2606:4700:4700::1111]/hooks', 'http://[::ffff:8.8.8.8]/'])('accepts %s', (url) => {
    expect(urlProblem(url, false)).toBeUndefined();
  });
});

describe('urlProblem: forms the URL parser normalises away', () => {
  it.each([
    ['http://localhost./', 'http://localhost/'],
    ['http://api.localhost./', 'http://api.localhost/'],
    ['http://db.internal./', 'http://db.internal/'],
    ['http://127.0.0.1./', 'http://127.0.0.1/'],
  ])('a trailing dot: %s is refused as %s', (dotted, plain) => {
    expect(urlProblem(plain, false)).toBeDefined();
    expect(urlProblem(dotted, false)).toBe(urlProblem(plain, false));
  });
  it.each(['http://@hooks.example.com/', 'http://:@hooks.example.com/', 'https://@hooks.example.com:8443/x', 'http://a@hooks.example.com/'])(
    'a userinfo, even empty: %s is refused, private targets allowed or not',
    (url) => {
      expect(urlProblem(url, false)).toBe('must not carry a user name or password');
      expect(urlProblem(url, true)).toBe('must not carry a user name or password');
    },
  );
  it.each(['https://hooks.example.com/in/@team', 'https://hooks.example.com/in?by=a@b', 'https://hooks.example.com/#@x'])('an @ after the host is no userinfo: %s is accepted', (url) => {
    expect(urlProblem(url, false)).toBeUndefined();
  });
});
