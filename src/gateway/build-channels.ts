import type { ChannelConfig } from '../config/schema.js';
import type { SimulatorOptionsConfig } from '../contracts/simulator-options.js';
import type { ProviderModule } from '../providers/types.js';
import type { VendorId } from '../providers/registry.js';
import { PROVIDERS, providerFor } from '../providers/registry.js';
import { startSimulator, type RunningSimulator } from '../simulator/server.js';
import { DEFAULT_TIMEOUTS, type Channel } from './channel.js';
import { buildChannelRedactor } from './channel-redactor.js';
import { credentialsOf, secretValuesOf, simulatorCredentialsOf } from './channel-credentials.js';

interface StartedSimulator {
  /** What it was started for (vendor and options): a channel whose definition changed them gets a new one. */
  fingerprint: string;
  simulator: RunningSimulator;
}

/**
 * Builds the channels from their definitions (the file's, with runtime changes over them, and
 * the runtime's own; issue 21), as often as they change. Configured channels come first; every
 * catalog model no configured channel serves gets its vendor's simulator channel (the embedded
 * default). A configured channel without `base_url` is a simulator channel of its own. Simulators
 * are started as channels need them and kept across rebuilds while their channel keeps its vendor
 * and options, so a running simulator (and what tests set on it) survives unrelated changes.
 */
export class ChannelBuilder {
  private readonly started = new Map<string, StartedSimulator>();
  /** The running simulators by channel name; the same Map throughout (deps.simulators). */
  readonly simulators = new Map<string, RunningSimulator>();

  constructor(private readonly defaults: SimulatorOptionsConfig = {}) {}

  /** `claimed`: models of channels that exist but cannot serve (sealed with a missing key): no simulator takes them. */
  async build(configured: readonly ChannelConfig[], claimed: ReadonlySet<string> = new Set()): Promise<Channel[]> {
    const channels: Channel[] = [];
    const served = new Set<string>(claimed);
    const used = new Set<string>();
    for (const config of configured) {
      const provider = providerFor(config.vendor as VendorId);
      let baseUrl = config.base_url?.replace(/\/$/, '');
      if (!baseUrl) {
        const simulator = await this.simulatorFor(config.name, provider, config.simulator ?? this.defaults);
        used.add(config.name);
        baseUrl = simulator.url + provider.simulatorBasePath;
      }
      channels.push(toChannel(config, provider, baseUrl));
      for (const model of Object.keys(config.models)) served.add(model);
    }
    for (const provider of PROVIDERS) {
      const models = Object.fromEntries(Object.entries(provider.defaultModels).filter(([model]) => !served.has(model)));
      if (Object.keys(models).length === 0) continue;
      const name = `simulator-${provider.vendor}`;
      const simulator = await this.simulatorFor(name, provider, this.defaults);
      used.add(name);
      channels.push(simulatorChannel(name, provider, simulator, models));
    }
    await this.closeUnused(used);
    return channels;
  }

  async close(): Promise<void> {
    await this.closeUnused(new Set());
  }

  private async simulatorFor(name: string, provider: ProviderModule, options: SimulatorOptionsConfig): Promise<RunningSimulator> {
    const fingerprint = `${provider.vendor}:${JSON.stringify(options)}`;
    const known = this.started.get(name);
    if (known?.fingerprint === fingerprint) return known.simulator;
    if (known) await known.simulator.close();
    const simulator = await startSimulator(provider.simulator, options);
    this.started.set(name, { fingerprint, simulator });
    this.simulators.set(name, simulator);
    return simulator;
  }

  private async closeUnused(used: ReadonlySet<string>): Promise<void> {
    for (const [name, { simulator }] of [...this.started]) {
      if (used.has(name)) continue;
      this.started.delete(name);
      this.simulators.delete(name);
      await simulator.close();
    }
  }
}

/** A vendor's module with Responses over chat, one per vendor, for channels that translate. */
const translatingResponses = new WeakMap<ProviderModule, ProviderModule>();

/**
 * The vendor's module as this channel speaks it (issue 33): with `responses: translate` (or no
 * setting and a base URL the vendor does not call native), /v1/responses goes through chat.
 */
export function providerAsSpoken(provider: ProviderModule<VendorId>, config: Pick<ChannelConfig, 'responses' | 'base_url'>): ProviderModule<VendorId> {
  const overChat = provider.responsesOverChat;
  if (!overChat) return provider;
  const mode = config.responses ?? (overChat.nativeByDefault(config.base_url) ? 'native' : 'translate');
  if (mode === 'native') return provider;
  let translating = translatingResponses.get(provider);
  if (!translating) translatingResponses.set(provider, (translating = { ...provider, pairs: { ...provider.pairs, responses: overChat.pair } }));
  return translating as ProviderModule<VendorId>;
}

function toChannel(config: ChannelConfig, vendorModule: ProviderModule<VendorId>, baseUrl: string): Channel {
  const provider = providerAsSpoken(vendorModule, config);
  return {
    name: config.name,
    vendor: provider.vendor,
    provider,
    baseUrl,
    credentials: config.base_url ? credentialsOf(config, vendorModule.channelFields) : simulatorCredentialsOf(vendorModule.channelFields),
    models: { ...config.models },
    priority: config.priority ?? 0,
    weight: config.weight ?? 1,
    maxRetries: config.max_retries ?? 2,
    autoDisableAfterAuthFailures: config.auto_disable_after_auth_failures,
    timeouts: {
      connectMs: config.timeouts?.connect_ms ?? DEFAULT_TIMEOUTS.connectMs,
      firstByteMs: config.timeouts?.first_byte_ms ?? DEFAULT_TIMEOUTS.firstByteMs,
      idleMs: config.timeouts?.idle_ms ?? DEFAULT_TIMEOUTS.idleMs,
      totalMs: config.timeouts?.total_ms ?? DEFAULT_TIMEOUTS.totalMs,
    },
    // Lower-cased so a channel's `Anthropic-Version` replaces the vendor default, not doubles it.
    headers: { ...provider.defaultHeaders, ...lowerCaseKeys(config.headers) },
    isSimulator: !config.base_url,
    prices: config.prices,
    redact: config.base_url
      ? buildChannelRedactor({ secrets: secretValuesOf(config), baseUrl: config.base_url })
      : undefined,
    maxInputsPerCall: config.max_inputs_per_call,
    promptCache: config.prompt_cache,
    batch: config.batch,
  };
}

function lowerCaseKeys(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
}

function simulatorChannel(name: string, provider: ProviderModule<VendorId>, simulator: RunningSimulator, models: Record<string, string>): Channel {
  return {
    name,
    vendor: provider.vendor,
    provider,
    baseUrl: simulator.url + provider.simulatorBasePath,
    credentials: simulatorCredentialsOf(provider.channelFields),
    models,
    priority: 0,
    weight: 1,
    maxRetries: 0,
    timeouts: DEFAULT_TIMEOUTS,
    headers: { ...provider.defaultHeaders },
    isSimulator: true,
  };
}
