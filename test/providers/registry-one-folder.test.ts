import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../helpers/instance-process.js';
import { TEST_ADMIN_TOKEN, TEST_KEY } from '../helpers/gateway.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = join(ROOT, 'test', 'fixtures', 'vendor-folder', 'acme-chat');
const REGISTRY = join('providers', 'registry.ts');
/** The one line that adds the vendor: the registry's entries each import their own folder. */
const REGISTRY_LINE = "  (await import('./acme-chat/index.js')).acmeChat,";

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  (function walk(d: string) {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(relative(dir, full));
    }
  })(dir);
  return out.sort();
}

/**
 * Adding a vendor is one folder and one registry line (issue 28): a copy of src/ gets the
 * fixture's vendor folder (its index.ts, simulator.ts and prices.ts) and one line in
 * providers/registry.ts, nothing else; the gateway started from that copy takes a channel of the
 * new vendor in its YAML, serves a chat completion through it, and prices it from its folder.
 */
describe('a vendor is one folder and one registry line (issue 28)', () => {
  let tree: string;
  let gateway: GatewayProcess;
  beforeAll(async () => {
    tree = mkdtempSync(join(tmpdir(), 'gateway-vendor-'));
    cpSync(join(ROOT, 'src'), join(tree, 'src'), { recursive: true });
    // What the tree runs with, not part of it: packages, the simulators' sample media, the module type.
    for (const shared of ['node_modules', 'assets', 'package.json', 'tsconfig.json']) symlinkSync(join(ROOT, shared), join(tree, shared));
    cpSync(FIXTURE, join(tree, 'src', 'providers', 'acme-chat'), { recursive: true });
    const registry = join(tree, 'src', REGISTRY);
    const lines = readFileSync(registry, 'utf8').split('\n');
    const end = lines.indexOf('] as const;');
    expect(end, 'the registry ends its vendor list with `] as const;`').toBeGreaterThan(0);
    lines.splice(end, 0, REGISTRY_LINE);
    writeFileSync(registry, lines.join('\n'));
    const dataDir = join(tree, 'data');
    mkdirSync(dataDir);
    gateway = await startGatewayProcess({
      name: 'one-folder',
      root: tree,
      dataDir,
      databaseUrl: '',
      // vite-node compiles the copied tree first: slow on a loaded machine.
      startTimeoutMs: 100_000,
      file: { channels: [{ name: 'acme', vendor: 'acme-chat', models: { 'acme-large': 'acme-large' } }] },
    });
  }, 120_000);
  afterAll(async () => {
    await gateway?.stop();
    if (tree) rmSync(tree, { recursive: true, force: true });
  });

  it('differs from src/ by the new folder and the one registry line only', () => {
    const original = filesUnder(join(ROOT, 'src'));
    const copy = filesUnder(join(tree, 'src'));
    const added = copy.filter((file) => !original.includes(file));
    expect(added).toEqual(filesUnder(FIXTURE).map((file) => join('providers', 'acme-chat', file)));
    expect(original.filter((file) => !copy.includes(file))).toEqual([]);
    const changed = original.filter((file) => !readFileSync(join(ROOT, 'src', file)).equals(readFileSync(join(tree, 'src', file))));
    expect(changed).toEqual([REGISTRY]);
    const before = readFileSync(join(ROOT, 'src', REGISTRY), 'utf8').split('\n');
    const after = readFileSync(join(tree, 'src', REGISTRY), 'utf8').split('\n');
    expect(after.filter((line) => !before.includes(line))).toEqual([REGISTRY_LINE]);
    expect(after.length).toBe(before.length + 1);
  });

  it('serves a chat completion through a channel of the new vendor (its own simulator)', async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'acme-large', messages: [{ role: 'user', content: 'Hello acme' }] });
    expect(completion.model).toBe('acme-large');
    expect(completion.choices[0]!.message.content).toBeTruthy();
    expect(completion.usage!.prompt_tokens).toBeGreaterThan(0);
  });

  it('lists the vendor, its channel fields and its price rows where the admin API reads the registry', async () => {
    const get = async (path: string) => (await fetch(`${gateway.url}/admin/api${path}`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).json();
    const vendors = (await get('/vendors')) as { data: Array<{ vendor: string; credentials: Array<{ name: string }> }> };
    expect(vendors.data.at(-1)).toMatchObject({ vendor: 'acme-chat', credentials: [{ name: 'api_key' }] });
    const sheet = (await get('/price-sheet')) as { vendors: Array<{ vendor: string; models: Array<{ id: string; price: Record<string, number> }> }> };
    expect(sheet.vendors.find((v) => v.vendor === 'acme-chat')?.models).toEqual([expect.objectContaining({ id: 'acme-large', price: expect.objectContaining({ prompt_per_1m: 3, completion_per_1m: 9 }) })]);
  });
});
