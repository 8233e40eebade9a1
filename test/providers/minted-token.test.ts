import { describe, expect, it } from 'vitest';
import { MintedTokenCache } from '../../src/providers/minted-token.js';
import { GatewayError } from '../../src/errors.js';

/** The token cache the cloud vendors share (issue 30): one mint per credentials, renewed early, failures not kept. */
describe('MintedTokenCache', () => {
  it('mints once for concurrent callers and reuses the token until its renewal point', async () => {
    const cache = new MintedTokenCache();
    let mints = 0;
    const mint = async () => ({ token: `t${++mints}`, expiresAtMs: 1_000_000 + 3_600_000 });
    const tokens = await Promise.all(Array.from({ length: 5 }, () => cache.tokenFor(['a', 'secret'], 1_000_000, mint)));
    expect(tokens).toEqual(['t1', 't1', 't1', 't1', 't1']);
    // Five minutes before expiry it is still fresh one millisecond earlier, renewed after.
    expect(await cache.tokenFor(['a', 'secret'], 1_000_000 + 3_300_000 - 1, mint)).toBe('t1');
    expect(await cache.tokenFor(['a', 'secret'], 1_000_000 + 3_300_000, mint)).toBe('t2');
    // Other credentials, another token.
    expect(await cache.tokenFor(['a', 'other'], 1_000_000, mint)).toBe('t3');
  });

  it('renews a short-lived token at three quarters of its life', async () => {
    const cache = new MintedTokenCache();
    let mints = 0;
    const mint = async () => ({ token: `t${++mints}`, expiresAtMs: 4_000 });
    expect(await cache.tokenFor(['k'], 0, mint)).toBe('t1');
    expect(await cache.tokenFor(['k'], 2_999, mint)).toBe('t1');
    expect(await cache.tokenFor(['k'], 3_000, mint)).toBe('t2');
  });

  it('a failed mint reaches every waiting caller and is not cached', async () => {
    const cache = new MintedTokenCache();
    let calls = 0;
    const failing = async () => {
      calls++;
      throw new GatewayError('GW_UPSTREAM_AUTH', 'refused');
    };
    const results = await Promise.allSettled([cache.tokenFor(['k'], 0, failing), cache.tokenFor(['k'], 0, failing)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(1);
    expect(await cache.tokenFor(['k'], 0, async () => ({ token: 'ok', expiresAtMs: 3_600_000 }))).toBe('ok');
  });
});
