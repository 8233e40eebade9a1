import { validateCreateKey, MODEL_IDS, ENDPOINT_FAMILIES } from '../api/management/key-schemas.js';
import { toKeyPatch } from '../api/management/key-input.js';
import { Catalog } from '../catalog/catalog.js';
import type { GatewayConfig } from '../config/schema.js';
import { isGatewayError } from '../errors.js';
import type { KeyStore } from '../keys/key-store.js';

export const KEYS_USAGE = `  gateway keys create [name] [--models a,b] [--families chat-completions,…] [--rpm N] [--tpm N]
                     [--budget USD] [--expires 2026-12-31T00:00:00Z|unix seconds|30d] [--max-parallel N] [--tier NAME]
  gateway keys list
  gateway keys revoke <id|prefix>`;

/** A command-line mistake: printed with the usage, exit code 2. */
export class UsageError extends Error {}

/** Flags of `keys create`, each with the admin API field it sets (`--endpoints` is the older name of `--families`). */
const FLAGS: Record<string, { field: string; list?: boolean; number?: boolean }> = {
  models: { field: 'models', list: true },
  families: { field: 'endpoints', list: true },
  endpoints: { field: 'endpoints', list: true },
  rpm: { field: 'rpm', number: true },
  tpm: { field: 'tpm', number: true },
  budget: { field: 'budget_usd', number: true },
  expires: { field: 'expires_at' },
  'max-parallel': { field: 'max_parallel_requests', number: true },
  tier: { field: 'tier' },
};

/**
 * `keys create` arguments as the admin API's create body, checked by the same validator: unknown
 * flags, unknown models or families and out-of-range numbers are refused with the reason, never
 * turned into a different key than the one asked for.
 */
export function parseCreateArgs(args: readonly string[], now: number): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) {
      if (body.name !== undefined) throw new UsageError(`unexpected argument '${arg}' (the key's name is '${String(body.name)}')`);
      body.name = arg;
      continue;
    }
    const [flagName, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    const flag = FLAGS[flagName];
    if (!flag) throw new UsageError(`unknown option --${flagName} (known: ${Object.keys(FLAGS).map((f) => `--${f}`).join(', ')})`);
    const value = inline ?? args[++i];
    if (value === undefined || value.startsWith('--')) throw new UsageError(`--${flagName} needs a value`);
    if (flag.list) {
      body[flag.field] = value.split(',').map((item) => item.trim()).filter(Boolean);
    } else if (flag.number) {
      const number = Number(value);
      if (value.trim() === '' || !Number.isFinite(number)) throw new UsageError(`--${flagName} must be a number, not '${value}'`);
      body[flag.field] = number;
    } else if (flagName === 'expires') {
      body[flag.field] = expiresAt(value, now);
    } else {
      body[flag.field] = value;
    }
  }
  body.name ??= 'cli';
  const unknownModel = (body.models as string[] | undefined)?.find((model) => !(MODEL_IDS as readonly string[]).includes(model));
  if (unknownModel) throw new UsageError(`unknown model '${unknownModel}'; models: ${MODEL_IDS.join(', ')}`);
  const unknownFamily = (body.endpoints as string[] | undefined)?.find((family) => !(ENDPOINT_FAMILIES as readonly string[]).includes(family));
  if (unknownFamily) throw new UsageError(`unknown family '${unknownFamily}'; families: ${ENDPOINT_FAMILIES.join(', ')}`);
  return body;
}

/** `30d`, `12h` from now, or what the admin API takes (ISO-8601, Unix seconds). */
function expiresAt(value: string, now: number): string | number {
  const relative = /^(\d+)([dh])$/.exec(value);
  if (relative) return new Date(now + Number(relative[1]) * (relative[2] === 'd' ? 86_400_000 : 3_600_000)).toISOString();
  return /^\d+$/.test(value) ? Number(value) : value;
}

/** Where the CLI's keys live, as a line for the operator (no credentials). */
export function describeStore(config: Pick<GatewayConfig, 'databaseUrl' | 'dataDir'>, sqliteFile: string): string {
  if (!config.databaseUrl) return `SQLite ${sqliteFile}`;
  const url = new URL(config.databaseUrl);
  return `PostgreSQL ${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname}`;
}

export async function keysCommand(keys: KeyStore, config: GatewayConfig, sub: string | undefined, args: string[], out: (line: string) => void): Promise<number> {
  switch (sub) {
    case 'create': {
      let patch;
      try {
        const body = validateCreateKey(parseCreateArgs(args, Date.now()));
        patch = toKeyPatch(body, config.file.tiers, new Catalog(config.file.models));
      } catch (error) {
        if (isGatewayError(error)) throw new UsageError(error.message);
        throw error;
      }
      const { key, secret } = await keys.create({ ...patch, name: patch.name! });
      out(`${key.id}\t${secret}`);
      return 0;
    }
    case 'list':
      for (const key of await keys.list()) {
        const state = key.revokedAt ? 'revoked' : key.disabledAt ? 'disabled' : 'active';
        out(`${key.id}\t${key.prefix}…\t${key.name}\t${state}`);
      }
      return 0;
    case 'revoke':
      if (!args[0]) throw new UsageError('keys revoke needs a key id or prefix');
      if (await keys.revoke(args[0])) {
        out(`revoked ${args[0]}`);
        return 0;
      }
      process.stderr.write(`no active key ${args[0]}\n`);
      return 1;
    default:
      throw new UsageError(sub ? `unknown keys command '${sub}'` : 'keys needs a command');
  }
}
