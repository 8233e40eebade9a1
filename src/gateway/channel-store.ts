import type { Db } from '../db/connect.js';
import type { ChannelConfig } from '../config/schema.js';
import { GatewayError } from '../errors.js';
import { SecretBox } from '../keys/secret-box.js';
import { isSealedField } from './channel-credentials.js';

/**
 * A channel as the admin API keeps it (issue 21): the file's fields. For a channel the file
 * defines too, only the fields changed at runtime (they win, field by field; the rest is the
 * file's); for one added at runtime, the whole channel.
 */
export type ChannelDefinition = Partial<ChannelConfig> & { name: string };


/** A channel whose sealed credentials this instance cannot open, and the key (id) that sealed them. */
export interface SealedChannel {
  name: string;
  sealedWith: string;
  /** Its definition without the credentials: its models stay claimed, so no simulator answers for them. */
  definition: ChannelDefinition;
}

export interface StoredChannels {
  definitions: ChannelDefinition[];
  /** Channels whose credentials this instance cannot open (a key it lacks, issue 34). */
  unreadable: SealedChannel[];
}

/** The `runtime_channels` table (0016): definitions in clear, credentials sealed with the instance's SecretBox. */
export class RuntimeChannelStore {
  /** The definitions as last read (the admin views tell runtime channels and overrides apart by them). */
  last: ReadonlyMap<string, ChannelDefinition> = new Map();
  /** The channels the last read could not open (readiness reports them). */
  unopenable: readonly SealedChannel[] = [];

  constructor(
    private readonly db: Db,
    readonly box: SecretBox | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** The id of the key this instance seals with, or undefined without one. */
  get keyId(): string | undefined {
    return this.box?.keyId;
  }

  /** Whether credentials can be stored (a key is configured, or was generated for the embedded store). */
  get canSeal(): boolean {
    return this.box !== undefined;
  }

  async list(): Promise<StoredChannels> {
    const rows = await this.db.selectFrom('runtime_channels').selectAll().orderBy('created_at').orderBy('name').execute();
    const definitions: ChannelDefinition[] = [];
    const unreadable: SealedChannel[] = [];
    for (const row of rows) {
      const definition = JSON.parse(row.definition) as ChannelDefinition;
      if (row.secrets === null) {
        definitions.push(definition);
        continue;
      }
      try {
        if (!this.box) throw new Error('no key');
        definitions.push({ ...definition, ...(JSON.parse(this.box.open(row.secrets)) as Record<string, unknown>) });
      } catch {
        unreadable.push({ name: row.name, sealedWith: SecretBox.keyIdOf(row.secrets), definition });
      }
    }
    this.last = new Map(definitions.map((definition) => [definition.name, definition]));
    this.unopenable = unreadable;
    return { definitions, unreadable };
  }

  async get(name: string): Promise<ChannelDefinition | undefined> {
    return (await this.list()).definitions.find((definition) => definition.name === name);
  }

  /** Stores the whole definition of `name` (replacing the previous one); credentials sealed apart. */
  async put(definition: ChannelDefinition): Promise<void> {
    const clear: Record<string, unknown> = {};
    const secrets: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(definition)) {
      if (value === undefined) continue;
      // The vendors' secret fields (their declarations) and the channel's headers are sealed apart.
      if (isSealedField(field)) secrets[field] = value;
      else clear[field] = value;
    }
    const hasSecrets = Object.keys(secrets).length > 0;
    if (hasSecrets && !this.box) {
      throw new GatewayError('GW_CONFLICT', 'Credentials cannot be stored: set GATEWAY_SECRET_KEY (the same 32-byte key on every instance) to encrypt them at rest, then retry');
    }
    const at = this.now();
    const row = { definition: JSON.stringify(clear), secrets: hasSecrets ? this.box!.seal(JSON.stringify(secrets)) : null, updated_at: at };
    await this.db
      .insertInto('runtime_channels')
      .values({ name: definition.name, ...row, created_at: at })
      .onConflict((conflict) => conflict.column('name').doUpdateSet(row))
      .execute();
  }

  async remove(name: string): Promise<boolean> {
    const result = await this.db.deleteFrom('runtime_channels').where('name', '=', name).executeTakeFirst();
    await this.db.deleteFrom('channel_settings').where('name', '=', name).execute();
    await this.db.deleteFrom('channel_state').where('name', '=', name).execute();
    return Number(result.numDeletedRows) > 0;
  }

  /**
   * A key rotation (GATEWAY_SECRET_KEY_PREVIOUS set): credentials sealed with the previous key are
   * sealed again with the current one. Returns how many were.
   */
  async reseal(): Promise<number> {
    if (!this.box) return 0;
    const rows = await this.db.selectFrom('runtime_channels').select(['name', 'secrets']).where('secrets', 'is not', null).execute();
    let resealed = 0;
    for (const row of rows) {
      if (!this.box.isStale(row.secrets!)) continue;
      const secrets = this.box.seal(this.box.open(row.secrets!));
      await this.db.updateTable('runtime_channels').set({ secrets }).where('name', '=', row.name).execute();
      resealed++;
    }
    return resealed;
  }
}

/** A file channel with its runtime changes over it, or a runtime channel alone (issue 21: the database wins field by field). */
export function mergeChannelDefinitions(file: readonly ChannelConfig[], runtime: readonly ChannelDefinition[]): ChannelConfig[] {
  const byName = new Map(runtime.map((definition) => [definition.name, definition]));
  const merged = file.map((channel) => ({ ...channel, ...byName.get(channel.name) }) as ChannelConfig);
  const fileNames = new Set(file.map((channel) => channel.name));
  for (const definition of runtime) if (!fileNames.has(definition.name)) merged.push(definition as ChannelConfig);
  return merged;
}
