/**
 * The response cache's per-tenant shares (issue 44): when the store is past `max_bytes`, no tenant
 * loses entries while another holds more than it. A tenant is a scope with its sub-namespaces
 * (`user:<id>`, `key:<id>`, `shared:<name>`, each with its `…/ns:…`), so splitting entries into
 * namespaces earns no bigger share.
 */
export const tenantOf = (scope: string): string => {
  const slash = scope.indexOf('/');
  return slash < 0 ? scope : scope.slice(0, slash);
};

/**
 * Bytes each tenant must give up to bring the total within `maxBytes`, by water-filling: the
 * largest level L with Σ min(bytes, L) ≤ maxBytes, and every tenant above L sheds down to it.
 * A tenant at or under its even share of what the bigger ones leave loses nothing; only those
 * holding the most shed, and the biggest sheds the most. Tenants that shed nothing are left out.
 */
export function bytesToShed(held: ReadonlyMap<string, number>, maxBytes: number): Map<string, number> {
  const tenants = [...held].filter(([, bytes]) => bytes > 0).sort((a, b) => a[1] - b[1]);
  const total = tenants.reduce((sum, [, bytes]) => sum + bytes, 0);
  const shed = new Map<string, number>();
  if (total <= maxBytes) return shed;
  let room = Math.max(0, maxBytes);
  for (const [i, [, bytes]] of tenants.entries()) {
    const level = Math.floor(room / (tenants.length - i));
    if (bytes > level) {
      for (const [tenant, over] of tenants.slice(i)) shed.set(tenant, over - level);
      break;
    }
    room -= bytes;
  }
  return shed;
}
