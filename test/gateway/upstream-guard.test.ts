import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { admin } from '../helpers/admin.js';
import { assertEnvelope } from '../helpers/envelopes.js';
import { buildUpstreamGuard } from '../../src/gateway/upstream-guard.js';

const DENIED = [
  'http://169.254.169.254/latest/meta-data',
  'http://169.254.10.1:8000/v1',
  'http://[fe80::1]/v1',
  'http://[FEBF::abcd]:8080/',
  'http://[fd00:ec2::254]/',
  'http://[::ffff:169.254.169.254]/',
  'http://metadata.google.internal/computeMetadata/v1',
  'http://METADATA.google.internal./',
  // Other spellings of 169.254.169.254 the URL parser normalises.
  'http://2852039166/',
  'http://0xA9FEA9FE/',
];
const ALLOWED = ['https://api.openai.com/v1', 'http://10.0.0.7:8000/v1', 'http://192.168.1.20/v1', 'http://[fd00::1]/v1', 'http://169.253.255.255/', 'http://vllm.internal:8000/v1'];

describe('the base_url guard, GATEWAY_DENY_LINK_LOCAL_UPSTREAMS (issue 34)', () => {
  it('refuses link-local and metadata addresses in every spelling, and nothing else', () => {
    const guard = buildUpstreamGuard(true);
    for (const url of DENIED) expect(guard(url), url).toContain('link-local or cloud metadata');
    for (const url of ALLOWED) expect(guard(url), url).toBeUndefined();
    // Off by default: nothing is refused.
    for (const url of DENIED) expect(buildUpstreamGuard(false)(url)).toBeUndefined();
  });

  it('a file channel on a metadata address stops the start when the guard is on', async () => {
    const file = { channels: [{ name: 'sneaky', vendor: 'openai' as const, base_url: 'http://169.254.169.254/v1', api_key: 'x', models: { 'delta-4.1': 'gpt-4.1' } }] };
    await expect(startTestGateway({ file, env: { denyLinkLocalUpstreams: true } })).rejects.toThrow(/channel 'sneaky'.*link-local or cloud metadata address \(169\.254\.169\.254\)/);
  });

  describe('at channel create and update', () => {
    let guarded: TestGateway;
    let open: TestGateway;
    beforeAll(async () => {
      guarded = await startTestGateway({ env: { denyLinkLocalUpstreams: true } });
      open = await startTestGateway();
    });
    afterAll(async () => {
      await guarded.stop();
      await open.stop();
    });

    it('refuses a metadata base_url with a 400 naming the field; allows it without the setting', async () => {
      const body = { name: 'imds', vendor: 'openai', base_url: 'http://[fd00:ec2::254]/v1', api_key: 'x', models: { 'delta-4.1': 'gpt-4.1' } };
      const refused = await admin(guarded, 'POST', '/channels', body);
      expect(refused.status).toBe(400);
      assertEnvelope('general', refused.json);
      expect(refused.json.error.message).toContain('GATEWAY_DENY_LINK_LOCAL_UPSTREAMS');
      const fine = await admin(guarded, 'POST', '/channels', { ...body, base_url: 'http://10.0.0.7:8000/v1' });
      expect(fine.status, fine.text).toBe(201);
      const patched = await admin(guarded, 'PATCH', '/channels/imds', { base_url: 'http://metadata.google.internal/v1' });
      expect(patched.status).toBe(400);
      expect((await admin(open, 'POST', '/channels', body)).status).toBe(201);
    });
  });
});
