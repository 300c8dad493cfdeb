import { describe, expect, it } from 'vitest';
import { addressGroup } from '../../lib/address-group.js';

/** Where an account signed in from is remembered per address group (services/auth/domain/known-addresses.ts). */
describe('addressGroup', () => {
  it('an IPv4 address is its own group; IPv4-mapped IPv6 is the IPv4 address', () => {
    expect(addressGroup('203.0.113.5')).toBe('203.0.113.5');
    expect(addressGroup('::ffff:203.0.113.5')).toBe('203.0.113.5');
  });

  it('IPv6 addresses of one /64 share a group, whatever their form; another /64 does not', () => {
    const group = addressGroup('2001:db8:1:2:aaaa:bbbb:cccc:dddd');
    expect(group).toBe('2001:db8:1:2::/64');
    for (const same of ['2001:db8:1:2::1', '2001:0db8:0001:0002:0:0:0:9', '2001:DB8:1:2:ffff::']) expect(addressGroup(same), same).toBe(group);
    expect(addressGroup('2001:db8:1:3::1')).not.toBe(group);
    expect(addressGroup('::1')).toBe('0:0:0:0::/64');
    expect(addressGroup('2001:db8::')).toBe('2001:db8:0:0::/64');
  });
});

describe('addressGroup with another prefix length', () => {
  it('cuts at any bit: /48, /56, /60, /128', () => {
    expect(addressGroup('2001:db8:1:2::1', 48)).toBe('2001:db8:1::/48');
    expect(addressGroup('2001:db8:1:2ab::1', 56)).toBe('2001:db8:1:200::/56');
    expect(addressGroup('2001:db8:1:2ab::1', 60)).toBe('2001:db8:1:2a0::/60');
    expect(addressGroup('2001:db8:1:2::1', 128)).toBe('2001:db8:1:2:0:0:0:1::/128');
    expect(addressGroup('2001:db8:1:2::1', 128)).not.toBe(addressGroup('2001:db8:1:2::2', 128));
    expect(addressGroup('fe80::1%eth0', 64)).toBe('fe80:0:0:0::/64');
    expect(addressGroup('::ffff:203.0.113.5', 48)).toBe('203.0.113.5');
  });
});
