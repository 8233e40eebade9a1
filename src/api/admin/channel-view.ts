import type { GatewayDeps } from '../../gateway-deps.js';
import type { Channel } from '../../gateway/channel.js';
import { HEALTH_WINDOW_MS } from '../../gateway/channel-health.js';
import { maskSecret } from '../../keys/secret-box.js';

const CIRCUIT = ['closed', 'half_open', 'open'] as const;

/** The channel fields that are not secrets but address a cloud account (Azure's tenant, Vertex's project), by their config names. */
function cloudSettingsOf(credentials: Partial<Channel['credentials']>): Record<string, string> {
  const named = { api_version: credentials.apiVersion, tenant_id: credentials.tenantId, client_id: credentials.clientId, authority_host: credentials.authorityHost, project: credentials.project };
  return Object.fromEntries(Object.entries(named).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

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
      credentials: {
        api_key: maskSecret(credentials.apiKey),
        access_key: maskSecret(credentials.accessKey),
        secret_key: maskSecret(credentials.secretKey),
        aws_access_key_id: maskSecret(credentials.awsAccessKeyId),
        aws_secret_access_key: maskSecret(credentials.awsSecretAccessKey),
        aws_session_token: maskSecret(credentials.awsSessionToken),
        // A key file's last characters say nothing useful (and a path is shown nowhere): only whether one is set.
        client_secret: maskSecret(credentials.clientSecret), service_account: credentials.serviceAccount ? '••••' : null,
      },
      headers: Object.fromEntries(Object.entries(channel.headers).map(([name, value]) => [name, maskSecret(value) ?? ''])),
      region: channel.credentials.region ?? null,
      settings: cloudSettingsOf(credentials),
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
