import { BlockList, isIP } from 'node:net';

/**
 * The opt-in `base_url` guard (GATEWAY_DENY_LINK_LOCAL_UPSTREAMS, issue 34): whoever may define a
 * channel (the admin token, an operator's console session) could otherwise point one at the cloud
 * metadata service and read instance credentials through the gateway's error texts and logs.
 * Link-local addresses (169.254.0.0/16, fe80::/10, where every cloud serves its metadata) and the
 * metadata services' own names and addresses are refused. Private ranges (10/8, 192.168/16, fc00::/7)
 * stay allowed: self-hosted upstreams live there. Names are compared as written, not resolved: a
 * DNS name that resolves to a link-local address needs a network policy, as documented.
 */
export type UpstreamGuard = (baseUrl: string) => string | undefined;

/** Host names of metadata services (GCP, Azure and AWS aliases). */
const METADATA_NAMES = ['metadata.google.internal', 'metadata', 'metadata.azure.internal', 'instance-data', 'instance-data.ec2.internal'];

export function buildUpstreamGuard(isEnabled: boolean): UpstreamGuard {
  if (!isEnabled) return () => undefined;
  const denied = new BlockList();
  denied.addSubnet('169.254.0.0', 16, 'ipv4');
  denied.addSubnet('fe80::', 10, 'ipv6');
  // AWS's IPv6 metadata endpoint sits in unique-local space, which is otherwise allowed.
  denied.addAddress('fd00:ec2::254', 'ipv6');
  const names = new Set(METADATA_NAMES);
  return (baseUrl) => {
    let host: string;
    try {
      // The URL parser normalises 0xA9FEA9FE, 2852039166 and 169.254.0x0.1 to dotted decimal.
      host = new URL(baseUrl).hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
    } catch {
      return undefined;
    }
    const family = isIP(host);
    if (family === 4 ? denied.check(host, 'ipv4') : family === 6 ? denied.check(host, 'ipv6') : names.has(host)) {
      return `'base_url' points at a link-local or cloud metadata address (${host}), which GATEWAY_DENY_LINK_LOCAL_UPSTREAMS refuses`;
    }
    return undefined;
  };
}
