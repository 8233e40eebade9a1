import type { GatewayDeps } from '../../gateway-deps.js';
import type { Channel } from '../../gateway/channel.js';
import { HEALTH_WINDOW_MS } from '../../gateway/channel-health.js';
import { maskSecret } from '../../keys/secret-box.js';
import { maskedSecretsOf, plainSettingsOf, rowFieldsOf } from '../../gateway/channel-credentials.js';

const CIRCUIT = ['closed', 'half_open', 'open'] as const;

/** Where a channel sends requests, without credentials or query (a base URL may carry either). */
function displayUrl(channel: Channel): string {
  if (channel.isSimulator) return 'built-in simulator';
  try {
    const url = new URL(channel.baseUrl);
    return `${url.protocol}//${url.host}${url.pathname}`.replace(/\/$/, '');
  } catch {
    return '(invalid URL)';
  }
}

/**
 * A channel as operators see it (issues 12 and 21): its settings, where it comes from, its
 * definition for editing (credentials and header values masked to their last four characters at
 * most), and its recent health on this instance.
 */
export function channelViewer(gateway: GatewayDeps) {
  const { channelControl, channelHealth, circuits, config, channelStore } = gateway;
  const fileNames = new Set((config.file.channels ?? []).map((channel) => channel.name));
  return (channel: Channel) => {
    const health = channelHealth.figures(channel.name);
    const file = channelControl.fileSettingsOf(channel.name)!;
    const enabled = channelControl.isEnabled(channel.name);
    const isRuntime = channelStore.last.has(channel.name);
    const credentials = channel.isSimulator ? {} : channel.credentials;
    const state = channelControl.stateOf(channel.name);
    return {
      id: channel.name,
      vendor: channel.vendor,
      base_url: displayUrl(channel),
      simulator: channel.isSimulator,
      enabled,
      weight: channel.weight,
      priority: channel.priority,
      file,
      overridden: enabled !== file.enabled || channel.weight !== file.weight || channel.priority !== file.priority,
      models: Object.keys(channel.models),
      source: fileNames.has(channel.name) ? ('file' as const) : isRuntime ? ('runtime' as const) : ('default' as const),
      runtime_override: fileNames.has(channel.name) && isRuntime,
      model_map: { ...channel.models },
      // Every field is read through its vendor's declaration (issue 43): secrets masked, the rest for editing.
      credentials: maskedSecretsOf(credentials),
      headers: Object.fromEntries(Object.entries(channel.headers).map(([name, value]) => [name, maskSecret(value) ?? ''])),
      region: credentials.region ?? null,
      settings: plainSettingsOf(credentials),
      row_fields: rowFieldsOf(credentials, channel.provider.channelFields),
      max_retries: channel.maxRetries,
      timeouts: { connect_ms: channel.timeouts.connectMs, first_byte_ms: channel.timeouts.firstByteMs, idle_ms: channel.timeouts.idleMs, total_ms: channel.timeouts.totalMs },
      prices: channel.prices ?? null,
      circuit: CIRCUIT[circuits.stateOf(channel.name)],
      window_s: HEALTH_WINDOW_MS / 1000,
      requests: health.requests,
      error_rate: health.error_rate,
      latency_p50_ms: health.latency_p50_ms,
      latency_p99_ms: health.latency_p99_ms,
      last_error: health.last_error && { ...health.last_error, at: new Date(health.last_error.at).toISOString() },
      auto_disable_after_auth_failures: (channel.autoDisableAfterAuthFailures ?? config.file.routing?.auto_disable_after_auth_failures) || null,
      // A reason left on an enabled channel (a crash between its two writes) no longer holds.
      auto_disabled: enabled ? null : state.autoDisabled,
      last_test: state.lastTest,
    };
  };
}
