import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { admin, createKey } from '../../helpers/admin.js';
import { consoleCall, inviteUser, type ConsoleSession } from '../../helpers/console.js';

/**
 * Issue 44 item 0: limits are the operator's. A key holder may lower what an operator set on
 * their key, never raise or remove it, and may pick only a tier within their key's (the default
 * tier when the operator gave none); an unknown tier's error names no other tier.
 */
const FILE = {
  tiers: {
    default: { default: { rpm: 3 } },
    gold: { default: { rpm: 1000 } },
    bronze: { default: { rpm: 2, tpm: 500 } },
  },
};
const DAY_MS = 86_400_000;

describe('a key holder cannot lift what the operator set (issue 44 item 0)', () => {
  let gateway: TestGateway;
  let session: ConsoleSession;
  let userId: string;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: FILE });
    ({ session, id: userId } = await inviteUser(gateway));
  });
  afterAll(() => gateway.stop());

  const patch = (id: string, body: Record<string, unknown>) => consoleCall(gateway, 'PATCH', `/console/api/keys/${id}`, body, { session });
  const refused = async (id: string, body: Record<string, unknown>, field: string) => {
    const answer = await patch(id, body);
    expect(answer.status, `${JSON.stringify(body)}: ${answer.text}`).toBe(403);
    expect(answer.json.error.code).toBe('allowance_exceeded');
    expect(answer.json.error.message.startsWith(`'${field}'`), answer.json.error.message).toBe(true);
  };

  it('a holder cannot put their key (new or old) in a tier above the default one; a lower tier is accepted', async () => {
    const own = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'mine' }, { session });
    expect(own.status, own.text).toBe(201);
    await refused(own.json.id, { tier: 'gold' }, 'tier');
    const created = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'gold', tier: 'gold' }, { session });
    expect(created.status, created.text).toBe(403);
    expect(created.json.error.message.startsWith("'tier'")).toBe(true);

    const lower = await patch(own.json.id, { tier: 'bronze' });
    expect(lower.status, lower.text).toBe(200);
    expect(lower.json.tier).toBe('bronze');
    // Back from bronze to the default tier is within the default tier: allowed.
    expect((await patch(own.json.id, { tier: null })).status).toBe(200);
  });

  it("an operator's tier bounds the holder's choice: below it yes, above it no", async () => {
    const { id } = await createKey(gateway, { owner: userId, tier: 'bronze' });
    await refused(id, { tier: null }, 'tier');
    await refused(id, { tier: 'gold' }, 'tier');
    expect((await patch(id, { tier: 'bronze', name: 'renamed' })).status).toBe(200);
  });

  it("an unknown tier is a 400 that lists no tier to a key holder (the operator's still lists them)", async () => {
    const own = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'probe' }, { session });
    const answer = await patch(own.json.id, { tier: 'platinum' });
    expect(answer.status).toBe(400);
    expect(answer.json.error.message.startsWith("'tier'")).toBe(true);
    expect(answer.text).not.toMatch(/gold|bronze/);
    const asOperator = await admin(gateway, 'PATCH', `/keys/${own.json.id}`, { tier: 'platinum' });
    expect(asOperator.status).toBe(400);
    expect(asOperator.text).toMatch(/gold/);
  });

  it("every limit the operator set on a user's key may be lowered but not removed or raised", async () => {
    const expiresAt = new Date(Date.now() + 30 * DAY_MS);
    const { id } = await createKey(gateway, {
      owner: userId, max_parallel_requests: 1, expires_at: expiresAt.toISOString(), rpm: 5, tpm: 1000, budget_usd: 0.01, cache_enabled: false,
    });
    const later = new Date(expiresAt.getTime() + 365 * DAY_MS).toISOString();
    for (const [field, higher] of [['max_parallel_requests', 2], ['expires_at', later], ['rpm', 6], ['tpm', 1001], ['budget_usd', 0.02]] as const) {
      await refused(id, { [field]: null }, field);
      await refused(id, { [field]: higher }, field);
    }
    await refused(id, { cache_enabled: true, cache_ttl_seconds: 365 * 86_400 }, 'cache_enabled');
    await refused(id, { cache_enabled: null }, 'cache_enabled');

    const earlier = new Date(expiresAt.getTime() - DAY_MS).toISOString();
    const lowered = await patch(id, { max_parallel_requests: 1, expires_at: earlier, rpm: 4, tpm: 500, budget_usd: 0.005, cache_enabled: false, cache_ttl_seconds: 60 });
    expect(lowered.status, lowered.text).toBe(200);
    expect(lowered.json).toMatchObject({ rpm: 4, tpm: 500, budget_usd: 0.005, max_parallel_requests: 1, cache_enabled: false, expires_at: earlier });
    // Back up to what the operator set (not past it) is still within their limits.
    expect((await patch(id, { rpm: 5, budget_usd: 0.01 })).status).toBe(200);
    await refused(id, { rpm: 6 }, 'rpm');

    // The operator keeps full control: lifting a limit lets the holder choose it again.
    const lifted = await admin(gateway, 'PATCH', `/keys/${id}`, { rpm: null, cache_enabled: null });
    expect(lifted.status, lifted.text).toBe(200);
    expect((await patch(id, { rpm: 100, cache_enabled: true })).status).toBe(200);
    await refused(id, { tpm: null }, 'tpm');
  });
});
