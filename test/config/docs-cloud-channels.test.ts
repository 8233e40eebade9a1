import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config/load.js';
import { call, startTestGateway } from '../helpers/gateway.js';

const ROOT = join(import.meta.dirname, '..', '..');
const ENV = {
  AWS_ACCESS_KEY_ID: 'AKIADOCS', AWS_SECRET_ACCESS_KEY: 'docs-secret', AZURE_OPENAI_API_KEY: 'docs-azure-key',
  AZURE_TENANT_ID: 'docs-tenant', AZURE_CLIENT_ID: 'docs-client', AZURE_CLIENT_SECRET: 'docs-client-secret', VERTEX_SERVICE_ACCOUNT_JSON: '{"type":"service_account"}',
};

/** The document's YAML block that configures a channel of each cloud. */
function cloudBlock(doc: string): string {
  const text = readFileSync(join(ROOT, doc), 'utf8');
  const blocks = [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]!);
  const block = blocks.find((yaml) => ['bedrock', 'azure-openai', 'vertex'].every((vendor) => yaml.includes(`vendor: ${vendor}`)));
  if (!block) throw new Error(`${doc} shows no YAML block with a channel of each cloud`);
  return block;
}

describe.each(['README.md', 'docs/deployment.md'])('%s: one working channel of each cloud (issue 30)', (doc: string) => {
  it('is a configuration the gateway starts with, each cloud serving its models', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cloud-docs-')), 'gateway.yaml');
    writeFileSync(path, cloudBlock(doc));
    const file = loadConfigFile(path, ENV);
    expect(new Set(file.channels!.map((channel) => channel.vendor))).toEqual(new Set(['bedrock', 'azure-openai', 'vertex']));
    const gateway = await startTestGateway({ file });
    try {
      const listed = await call(gateway, 'GET', '/v1/models');
      expect(listed.status).toBe(200);
      const ids = (listed.json.data as Array<{ id: string }>).map((model) => model.id);
      for (const channel of file.channels!) for (const model of Object.keys(channel.models)) expect(ids).toContain(model);
      // Each cloud channel is the configured one (its base_url), not a simulator standing in.
      for (const configured of file.channels!) {
        const running = gateway.deps.channels.find((channel) => channel.name === configured.name)!;
        expect(running, configured.name).toMatchObject({ vendor: configured.vendor, isSimulator: false });
        if (configured.base_url) expect(running.baseUrl).toBe(configured.base_url);
      }
    } finally {
      await gateway.stop();
    }
  });
});
