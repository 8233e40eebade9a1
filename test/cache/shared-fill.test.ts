import { describe, expect, it } from 'vitest';
import type { CacheEntry } from '../../src/cache/cache-store.js';
import type { FillLeases } from '../../src/cache/fill-leases.js';
import { SharedFills } from '../../src/cache/shared-fill.js';

const entry = { id: 'e', scope: 's' } as CacheEntry;
const failing = () => Promise.reject(new Error('store down'));
/** Leases held by someone else, as `held` says; `claim` never succeeds unless told. */
const leasesOf = (overrides: Partial<FillLeases>): FillLeases => ({
  claim: async () => false,
  held: async () => true,
  release: async () => undefined,
  prune: async () => undefined,
  ...overrides,
});

/** The fill across instances (issue 32): who leads, how long the others wait, and failing open. */
describe('SharedFills', () => {
  it('a store error while claiming leads (goes upstream) instead of waiting', async () => {
    const fills = new SharedFills(leasesOf({ claim: failing }), async () => undefined, Date.now, 5_000);
    expect((await fills.join('e', 's')).isLeader).toBe(true);
  });

  it('a store error while waiting goes upstream at once, not after the bound', async () => {
    const fills = new SharedFills(leasesOf({ held: failing }), failing, Date.now, 5_000);
    const started = Date.now();
    expect(await fills.join('e', 's')).toEqual({ isLeader: false, entry: undefined });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('waits for the entry the leader stores while it holds the lease', async () => {
    const storedAt = Date.now() + 150;
    const fills = new SharedFills(leasesOf({}), async () => (Date.now() >= storedAt ? entry : undefined), Date.now, 5_000);
    expect(await fills.join('e', 's')).toEqual({ isLeader: false, entry });
  });

  it('a lease that is never let go holds the waiter back for the bound only', async () => {
    const fills = new SharedFills(leasesOf({}), async () => undefined, Date.now, 300);
    const started = Date.now();
    expect(await fills.join('e', 's')).toEqual({ isLeader: false, entry: undefined });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('the leader lets go of its own lease once its write has landed', async () => {
    const released: string[] = [];
    const fills = new SharedFills(leasesOf({ claim: async () => true, release: async (id, holder) => void released.push(`${id}:${holder.length}`) }), async () => undefined, Date.now, 5_000);
    const lead = await fills.join('e', 's');
    if (!lead.isLeader) throw new Error('expected to lead');
    let land!: () => void;
    lead.release(new Promise<void>((r) => (land = r)));
    lead.release(Promise.resolve());
    await new Promise((r) => setTimeout(r, 20));
    expect(released).toEqual([]);
    land();
    await new Promise((r) => setTimeout(r, 20));
    expect(released).toEqual(['e:36']);
  });
});
