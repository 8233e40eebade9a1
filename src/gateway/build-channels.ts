import type { ChannelConfig, SimulatorOptionsConfig } from '../config/schema.js';
import type { ProviderModule, VendorId } from '../providers/types.js';
import { PROVIDERS, providerFor } from '../providers/registry.js';
import { startSimulator, type RunningSimulator } from '../simulator/server.js';
import { DEFAULT_TIMEOUTS, type Channel } from './channel.js';

/** What the simulators accept; configured simulator channels use them too. */
const SIMULATOR_CREDENTIALS = Object.freeze({ apiKey: 'simulator-key', accessKey: 'simulator-ak', secretKey: 'simulator-sk' });

export interface BuiltChannels {
  channels: Channel[];
  simulators: Map<string, RunningSimulator>;
}

/**
 * Configured channels first; every catalog model that no configured channel serves gets its
 * vendor's simulator channel (the embedded default). A configured channel without `base_url`
 * is a simulator channel of its own, with its own simulator options.
 */
export async function buildChannels(configured: readonly ChannelConfig[], defaults: SimulatorOptionsConfig = {}): Promise<BuiltChannels> {
  const channels: Channel[] = [];
  const simulators = new Map<string, RunningSimulator>();
  const served = new Set<string>();

  for (const config of configured) {
    const provider = providerFor(config.vendor as VendorId);
    let baseUrl = config.base_url?.replace(/\/$/, '');
    if (!baseUrl) {
      const simulator = await startSimulator(provider.simulator, config.simulator ?? defaults);
      simulators.set(config.name, simulator);
      baseUrl = simulator.url + provider.simulatorBasePath;
    }
    channels.push({
      name: config.name,
      vendor: provider.vendor,
      provider,
      baseUrl,
      credentials: baseUrl && config.base_url
        ? { apiKey: config.api_key, accessKey: config.access_key, secretKey: config.secret_key, region: config.region }
        : SIMULATOR_CREDENTIALS,
      models: { ...config.models },
      priority: config.priority ?? 0,
      weight: config.weight ?? 1,
      maxRetries: config.max_retries ?? 2,
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
    });
    for (const model of Object.keys(config.models)) served.add(model);
  }

  for (const provider of PROVIDERS) {
    const models = Object.fromEntries(Object.entries(provider.defaultModels).filter(([model]) => !served.has(model)));
    if (Object.keys(models).length === 0) continue;
    const name = `simulator-${provider.vendor}`;
    const simulator = await startSimulator(provider.simulator, defaults);
    simulators.set(name, simulator);
    channels.push(simulatorChannel(name, provider, simulator, models));
  }
  return { channels, simulators };
}

function lowerCaseKeys(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
}

function simulatorChannel(name: string, provider: ProviderModule, simulator: RunningSimulator, models: Record<string, string>): Channel {
  return {
    name,
    vendor: provider.vendor,
    provider,
    baseUrl: simulator.url + provider.simulatorBasePath,
    credentials: SIMULATOR_CREDENTIALS,
    models,
    priority: 0,
    weight: 1,
    maxRetries: 0,
    timeouts: DEFAULT_TIMEOUTS,
    headers: { ...provider.defaultHeaders },
    isSimulator: true,
  };
}
