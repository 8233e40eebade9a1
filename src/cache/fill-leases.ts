/**
 * Who fills a missed entry for every instance sharing the store (issue 32): the first miss claims
 * the entry id's lease and goes upstream; identical misses elsewhere wait for its entry. A lease
 * expires by itself, so a leader that crashed holds the others back at most `ttlMs`.
 */
export interface FillLeases {
  /** True when the caller now holds the lease (none was held, or the one held had expired). */
  claim(id: string, holder: string, ttlMs: number, now: number): Promise<boolean>;
  held(id: string, now: number): Promise<boolean>;
  /** Lets go of the caller's own lease only (one that expired and was claimed again stays). */
  release(id: string, holder: string): Promise<void>;
  /** Background: drops expired leases where the store does not expire them itself. */
  prune(now: number): Promise<void>;
}
