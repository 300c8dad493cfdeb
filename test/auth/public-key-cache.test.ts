import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { publicJwk, type PublicJwk } from '../../lib/tokens/keys.js';
import { PublicKeyCache } from '../../lib/tokens/public-key-cache.js';

const newJwk = (): PublicJwk => publicJwk(createPublicKey(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey));

/** A cache over a key set the test changes, on a clock the test moves. */
function setup(options: { maxAgeMs?: number; minRefetchMs?: number } = {}) {
  const state = { published: [] as PublicJwk[], fetches: 0, failing: false, now: 1_000_000 };
  const cache = new PublicKeyCache({
    fetch: async () => {
      state.fetches += 1;
      if (state.failing) throw new Error('auth unreachable');
      return state.published;
    },
    refreshMs: 10_000,
    maxAgeMs: options.maxAgeMs ?? 30_000,
    minRefetchMs: options.minRefetchMs ?? 1000,
    now: () => state.now,
  });
  return { state, cache };
}

describe('the public keys a token-checking process keeps (PublicKeyCache)', () => {
  it('fetches the set for an unknown kid and then answers from it without fetching', async () => {
    const { state, cache } = setup();
    const a = newJwk();
    state.published = [a];
    expect(cache.current(a.kid), 'nothing before the first fetch').toBeUndefined();
    expect(await cache.keyFor(a.kid)).toBeDefined();
    expect(await cache.keyFor(a.kid)).toBeDefined();
    expect(cache.current(a.kid)).toBeDefined();
    expect(state.fetches).toBe(1);
  });

  it('picks up a new signing key at its first kid, but fetches for unknown kids at most once per interval', async () => {
    const { state, cache } = setup();
    const [a, b] = [newJwk(), newJwk()];
    state.published = [a];
    await cache.keyFor(a.kid);
    state.now += 1500;
    state.published = [a, b];
    expect(await cache.keyFor(b.kid), 'the rotation: a kid it had not seen').toBeDefined();
    expect(state.fetches).toBe(2);
    for (let i = 0; i < 20; i++) expect(await cache.keyFor(`garbage-${i}`)).toBeUndefined();
    expect(state.fetches, 'garbage kids within a second of the last fetch cost nothing').toBe(2);
    state.now += 1500;
    await cache.keyFor('garbage-again');
    expect(state.fetches).toBe(3);
  });

  it('drops a retired key at the next fetch', async () => {
    const { state, cache } = setup();
    const [a, b] = [newJwk(), newJwk()];
    state.published = [a, b];
    await cache.keyFor(a.kid);
    state.published = [b];
    await cache.refresh();
    expect(cache.current(a.kid)).toBeUndefined();
    expect(cache.current(b.kid)).toBeDefined();
  });

  it('believes a set only for maxAgeMs when fetches fail, and joins concurrent fetches into one', async () => {
    const { state, cache } = setup({ maxAgeMs: 30_000 });
    const a = newJwk();
    state.published = [a];
    await Promise.all([cache.keyFor(a.kid), cache.keyFor(a.kid), cache.refresh()]);
    expect(state.fetches).toBe(1);
    state.failing = true;
    state.now += 20_000;
    await cache.refresh();
    expect(cache.current(a.kid), 'a failed fetch keeps the set while it is young').toBeDefined();
    state.now += 11_000;
    expect(cache.current(a.kid), 'too old: not believed any more').toBeUndefined();
    expect(await cache.keyFor(a.kid)).toBeUndefined();
  });

  it('ignores keys that are not ES256 signing keys or whose kid is not their thumbprint', async () => {
    const { state, cache } = setup();
    const a = newJwk();
    const b = newJwk();
    state.published = [{ ...a, alg: 'RS256' }, { ...b, kid: a.kid }];
    expect(await cache.keyFor(a.kid)).toBeUndefined();
  });
});
