import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, loadConfigFile } from '../../src/config/load.js';
import { CATALOG } from '../../src/catalog/models.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', 'gateway.example.yaml');
const FAKE_ENV = Object.fromEntries(
  ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'ARK_API_KEY', 'ZHIPU_API_KEY', 'GEMINI_API_KEY', 'DASHSCOPE_API_KEY', 'KLING_ACCESS_KEY', 'KLING_SECRET_KEY'].map((n) => [n, `test-${n}`]),
);

const writeYaml = (text: string) => {
  const path = join(mkdtempSync(join(tmpdir(), 'gateway-config-')), 'gateway.yaml');
  writeFileSync(path, text);
  return path;
};

describe('configuration (issue 2 settings, issue 3 channels)', () => {
  it('gateway.example.yaml is valid and wires every catalog model that has an upstream', () => {
    const file = loadConfigFile(EXAMPLE, FAKE_ENV);
    const served = new Set(file.channels!.flatMap((c) => Object.keys(c.models)));
    const needUpstream = CATALOG.filter((m) => !m.families.includes('cloud-asset')).map((m) => m.id);
    expect(needUpstream.filter((id) => !served.has(id))).toEqual([]);
    expect(file.channels!.find((c) => c.vendor === 'openai')!.api_key).toBe('test-OPENAI_API_KEY');
  });

  it('names the missing environment variable', () => {
    expect(() => loadConfigFile(EXAMPLE, {})).toThrow(/environment variable OPENAI_API_KEY is not set/);
  });

  it('names the field and its line when the file is wrong', () => {
    const path = writeYaml(['channels:', '  - name: a', '    vendor: openai', '    models: { delta-4.1: gpt-4.1 }', '    weight: zero', ''].join('\n'));
    expect(() => loadConfigFile(path, {})).toThrow(/'channels\.0\.weight' \(line 5\) must be integer/);
    const vendor = writeYaml(['channels:', '  - name: a', '    vendor: acme', '    models: {}', ''].join('\n'));
    expect(() => loadConfigFile(vendor, {})).toThrow(/channels\.0\.vendor/);
  });

  it('refuses a base_url that repeats the version segment the gateway adds, naming field and line (issue 14)', () => {
    const doubled = (vendor: string, url: string) =>
      writeYaml(['channels:', '  - name: a', `    vendor: ${vendor}`, `    base_url: ${url}`, '    api_key: k', '    models: { x: y }', ''].join('\n'));
    expect(() => loadConfigFile(doubled('anthropic', 'https://api.anthropic.com/v1'), {})).toThrow(/'channels\.0\.base_url' \(line 4\) ends with '\/v1'/);
    expect(() => loadConfigFile(doubled('gemini', 'https://generativelanguage.googleapis.com/v1beta/'), {})).toThrow(/ends with '\/v1beta'/);
    expect(() => loadConfigFile(doubled('kling', 'https://api-singapore.klingai.com/v1'), {})).toThrow(/base_url/);
    // Where base_url carries the version, it must.
    expect(() => loadConfigFile(doubled('openai', 'https://api.openai.com/v1'), {})).not.toThrow();
    expect(() => loadConfigFile(doubled('anthropic', 'https://api.anthropic.com'), {})).not.toThrow();
  });

  it('reads the settings from the environment with their defaults', () => {
    const config = loadConfig({ GATEWAY_BOOTSTRAP_KEY: 'sk-x' });
    expect(config).toMatchObject({ port: 8080, host: '0.0.0.0', bootstrapKey: 'sk-x', adminToken: undefined });
    expect(config.dataDir.endsWith('data')).toBe(true);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
  });

  it('reads the MCP and upstream body bounds (issue 44)', () => {
    const env = { GATEWAY_MAX_UPSTREAM_BODY_BYTES: '1048576', GATEWAY_MCP_MAX_RESULT_BYTES: '65536', GATEWAY_MCP_SESSIONS_PER_KEY: '4', GATEWAY_MCP_SESSION_IDLE_MS: '60000' };
    expect(loadConfig(env)).toMatchObject({ maxUpstreamBodyBytes: 1048576, mcpMaxResultBytes: 65536, mcpSessionsPerKey: 4, mcpSessionIdleMs: 60000 });
    expect(() => loadConfig({ GATEWAY_MCP_SESSIONS_PER_KEY: 'many' })).toThrow(/GATEWAY_MCP_SESSIONS_PER_KEY/);
  });

  it('reads the file upload limits (issue 46), unset by default (OpenAI\'s 512 MB and 200 MB apply)', () => {
    expect(loadConfig({ GATEWAY_FILE_MAX_BYTES: '4096', GATEWAY_BATCH_FILE_MAX_BYTES: '2048' })).toMatchObject({ fileMaxBytes: 4096, batchFileMaxBytes: 2048 });
    expect(loadConfig({})).not.toHaveProperty('fileMaxBytes');
    expect(() => loadConfig({ GATEWAY_FILE_MAX_BYTES: 'big' })).toThrow(/GATEWAY_FILE_MAX_BYTES/);
  });
});
