import type { ChannelConfig, GatewayConfig } from '../config/schema.js';
import { withStartupLock, type Db } from '../db/connect.js';
import { ChannelBuilder } from './build-channels.js';
import type { Channel } from './channel.js';
import type { ChannelControl } from './channel-control.js';
import { mergeChannelDefinitions, RuntimeChannelStore, type ChannelDefinition, type SealedChannel } from './channel-store.js';
import { describeSealedChannels } from './sealed-channels.js';
import { buildUpstreamGuard, refusedUrl, type UpstreamGuard } from './upstream-guard.js';
import { channelUpstreamUrls } from './upstream-urls.js';
import { loadSecretBox } from '../keys/secret-box.js';
import { Catalog } from '../catalog/catalog.js';
import { CatalogStore } from '../catalog/catalog-store.js';
import { CatalogSync } from '../catalog/catalog-sync.js';
import { checkCatalogReferences } from '../catalog/check-config.js';
import { PriceBook } from '../catalog/price-book.js';

export interface RuntimeCatalogOptions {
  db: Db;
  config: GatewayConfig;
  announce: (line: string) => void;
  /** Problems found while running (a failed read, credentials this instance cannot open). */
  warn: (message: string, error?: unknown) => void;
}

/**
 * Everything the operator can change at runtime without a restart (issue 21), assembled once per
 * instance: the catalog and prices (file, then database), the channels (file, with the database's
 * changes over them, plus the database's own) and their simulators. Every instance re-reads the
 * database when its revision moves (catalog-sync.ts), models and prices first, then channels.
 */
export class RuntimeCatalog {
  readonly catalog: Catalog;
  readonly prices: PriceBook;
  readonly store: CatalogStore;
  readonly channelStore: RuntimeChannelStore;
  readonly builder: ChannelBuilder;
  readonly sync: CatalogSync;
  /** The channels as last built, and those their definition disables. */
  channels: Channel[] = [];
  disabled: ReadonlySet<string> = new Set();
  private control: ChannelControl | undefined;
  private definitionsSeen = '';
  /** Whether the first build (the start's) is done: problems found later cannot stop the start. */
  private hasBuilt = false;
  private readonly upstreamGuard: UpstreamGuard;
  /** `channel\0model` pairs already warned about as unpriced: once each, not at every rebuild. */
  private readonly unpricedWarned = new Set<string>();

  private constructor(private readonly options: RuntimeCatalogOptions, channelStore: RuntimeChannelStore) {
    const { db, config } = options;
    this.catalog = new Catalog(config.file.models);
    this.prices = new PriceBook(config.file.prices, config.file.builtin_prices !== false);
    this.store = new CatalogStore(db);
    this.channelStore = channelStore;
    this.builder = new ChannelBuilder(config.file.simulator);
    this.upstreamGuard = buildUpstreamGuard(config);
    this.sync = new CatalogSync(this.store, { reload: () => this.reload(), onError: (error) => options.warn('reading the catalog failed; the last one stays in force', error) });
  }

  /**
   * Loads the catalog, checks the file's references against it (a channel naming an unknown model
   * stops the start with field and line), re-seals credentials during a key rotation, and builds
   * the channels.
   */
  static async start(options: RuntimeCatalogOptions): Promise<RuntimeCatalog> {
    const { db, config } = options;
    const box = loadSecretBox({ secretKey: config.secretKey, secretKeyPrevious: config.secretKeyPrevious, dataDir: config.dataDir, isShared: config.databaseUrl !== undefined }, options.announce);
    const channelStore = new RuntimeChannelStore(db, box);
    if (config.secretKeyPrevious) {
      const resealed = await withStartupLock(db, () => channelStore.reseal());
      if (resealed > 0) options.announce(`Re-encrypted the credentials of ${resealed} channel(s) with GATEWAY_SECRET_KEY; GATEWAY_SECRET_KEY_PREVIOUS can be removed once every instance runs with the new key.`);
    }
    const runtime = new RuntimeCatalog(options, channelStore);
    await runtime.loadModelsAndPrices();
    checkCatalogReferences(config.file, runtime.catalog, config.fileSource);
    try {
      await runtime.sync.check();
    } catch (error) {
      await runtime.close();
      throw error;
    }
    return runtime;
  }

  /** ChannelControl applies the stored settings over the channels; from now on rebuilds go to it. */
  attach(control: ChannelControl): void {
    this.control = control;
  }

  /** Every channel with its settings applied: what the catalog and prices read. */
  onChannels(all: readonly Channel[]): void {
    this.catalog.setChannels(all);
    this.prices.setChannels(all);
  }

  async close(): Promise<void> {
    this.sync.close();
    await this.builder.close();
  }

  /** The link-local guard: such a channel stops the start; one stored later by an instance that allows it is left out. */
  private isAllowedUpstream(definition: ChannelConfig): boolean {
    const refused = refusedUrl(this.upstreamGuard, channelUpstreamUrls(definition));
    if (!refused) return true;
    const message = `channel '${definition.name}': ${refused.message}`;
    if (!this.hasBuilt) throw new Error(message);
    this.options.warn(`${message}; it is left out`);
    return false;
  }

  /**
   * A model an operator's channel maps to an upstream name that has no price (not on the built-in
   * sheet, no operator or channel price) is billed $0 (issue 33): said once, naming channel and
   * model, so a typo or a new model does not go unbilled unnoticed. Simulator channels cost nothing by design.
   */
  private warnUnpriced(channels: readonly Channel[]): void {
    for (const channel of channels) {
      if (channel.isSimulator) continue;
      for (const [model, upstream] of Object.entries(channel.models)) {
        const key = `${channel.name}\u0000${model}`;
        if (this.unpricedWarned.has(key) || this.prices.priceOn(channel, model)) continue;
        this.unpricedWarned.add(key);
        this.options.warn(
          `channel '${channel.name}': model '${model}' (upstream '${upstream}') has no price (not on the built-in price sheet, no operator or channel price): its requests are billed $0 until one is set`,
        );
      }
    }
  }

  private async loadModelsAndPrices(): Promise<void> {
    const [models, stored] = await Promise.all([this.store.models(), this.store.prices()]);
    this.catalog.setRuntimeModels(models);
    this.prices.setRuntimePrices(stored);
  }

  private async reload(): Promise<void> {
    await this.loadModelsAndPrices();
    const channels = await this.channelStore.list();
    if (channels.unreadable.length > 0) {
      const message = describeSealedChannels(channels.unreadable, this.channelStore.keyId);
      // A start stops (never a simulator answering for an operator's model); a running instance cannot, so the channels serve nothing and readiness says so.
      if (!this.hasBuilt && !this.options.config.allowUnopenableChannels) throw new Error(message);
      this.options.warn(message);
    }
    await this.rebuild(channels.definitions, channels.unreadable);
  }

  private async rebuild(runtime: readonly ChannelDefinition[], sealed: readonly SealedChannel[]): Promise<void> {
    const fingerprint = JSON.stringify([runtime, sealed.map((channel) => channel.name)]);
    if (fingerprint === this.definitionsSeen && this.hasBuilt) return;
    this.definitionsSeen = fingerprint;
    const sealedNames = new Set(sealed.map((channel) => channel.name));
    const all = mergeChannelDefinitions(this.options.config.file.channels ?? [], [...runtime, ...sealed.map((channel) => channel.definition)]);
    const definitions = all.filter((definition) => {
      if (sealedNames.has(definition.name)) return false;
      const isComplete = typeof definition.vendor === 'string' && definition.models !== undefined;
      if (!isComplete) this.options.warn(`channel '${definition.name}' has no vendor or models and is left out`);
      return isComplete && this.isAllowedUpstream(definition);
    });
    // The models of channels that cannot be opened stay claimed: no simulator answers for them.
    const claimed = new Set(all.filter((definition) => sealedNames.has(definition.name)).flatMap((definition) => Object.keys(definition.models ?? {})));
    this.channels = await this.builder.build(definitions, claimed);
    this.hasBuilt = true;
    this.warnUnpriced(this.channels);
    this.disabled = new Set(definitions.filter((definition) => definition.enabled === false).map((definition) => definition.name));
    if (this.control) this.control.setConfigured(this.channels, this.disabled);
    else this.onChannels(this.channels);
  }
}
