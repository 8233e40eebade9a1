import type { ChannelConfig, GatewayConfig, McpServerConfig } from '../config/schema.js';
import { providerFor, VENDOR_IDS, type VendorId } from '../providers/registry.js';
import { buildUpstreamGuard, refusedUrl, type UpstreamGuard } from './upstream-guard.js';

/** A URL the gateway fetches, with the field of the definition that gives it. */
export interface FetchedUrl {
  field: string;
  url: string;
}

/**
 * Every URL the gateway fetches for a channel: its `base_url`, each field its vendor declares of
 * type `url` (an identity service's sign-in host), and URLs inside a field's value (a key file's
 * token endpoint).
 */
export function channelUpstreamUrls(channel: Partial<ChannelConfig>): FetchedUrl[] {
  const urls: FetchedUrl[] = channel.base_url ? [{ field: 'base_url', url: channel.base_url }] : [];
  const isKnownVendor = channel.vendor !== undefined && (VENDOR_IDS as readonly string[]).includes(channel.vendor);
  if (!isKnownVendor) return urls;
  const vendor = providerFor(channel.vendor as VendorId);
  for (const field of vendor.channelFields.credentials) {
    const value = channel[field.name];
    if (field.type === 'url' && typeof value === 'string' && value !== '') urls.push({ field: field.name, url: value });
  }
  urls.push(...(vendor.fetchedUrls?.(channel) ?? []));
  return urls;
}

/** Every URL the gateway fetches for an upstream MCP server: its endpoint and its OAuth token endpoint. */
export function mcpServerUpstreamUrls(server: Partial<McpServerConfig>): FetchedUrl[] {
  const urls: FetchedUrl[] = server.url ? [{ field: 'url', url: server.url }] : [];
  if (server.auth?.type === 'oauth_client_credentials') urls.push({ field: 'auth.token_url', url: server.auth.token_url });
  return urls;
}

/** The configuration file's channels and MCP servers: the first URL the guard refuses stops the start, naming the definition and its field. */
export function checkFileUpstreams(config: GatewayConfig, guard: UpstreamGuard = buildUpstreamGuard(config)): void {
  for (const channel of config.file.channels ?? []) {
    const refused = refusedUrl(guard, channelUpstreamUrls(channel));
    if (refused) throw new Error(`channel '${channel.name}': ${refused.message}`);
  }
  for (const server of config.file.mcp_servers ?? []) {
    const refused = refusedUrl(guard, mcpServerUpstreamUrls(server));
    if (refused) throw new Error(`MCP server '${server.name}': ${refused.message}`);
  }
}
