import { describe, expect, it } from 'vitest';
import { bytesToShed, tenantOf } from '../../src/cache/tenant-shares.js';

describe('the response cache shares its size out by tenant (issue 44)', () => {
  it('only the tenants holding the most shed, down to one level, and the total fits', () => {
    const held = new Map([['user:small', 100], ['user:mid', 300], ['user:big', 5_000]]);
    expect(bytesToShed(held, 10_000)).toEqual(new Map());
    const shed = bytesToShed(held, 1_000);
    expect(shed).toEqual(new Map([['user:big', 4_400]]));
    const both = bytesToShed(held, 500);
    // 100 stays; 400 left for two tenants: 200 each.
    expect(both).toEqual(new Map([['user:mid', 100], ['user:big', 4_800]]));
    expect(bytesToShed(held, 0)).toEqual(held);
  });

  it("a scope's sub-namespaces are the same tenant", () => {
    expect(tenantOf('user:u1/ns:a')).toBe('user:u1');
    expect(tenantOf('shared:team')).toBe('shared:team');
  });
});
