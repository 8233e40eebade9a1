import { BlockList, isIP } from 'node:net';

/**
 * The link-local guard (issue 34, on by default since issue 44): whoever may define a channel or an
 * MCP server (the admin token, an operator's console session, a careless file) could otherwise point
 * one of its URLs at the cloud metadata service and read instance credentials through the gateway's
 * answers, error texts and logs. Link-local addresses (169.254.0.0/16, fe80::/10, where most clouds
 * serve their metadata) and the metadata services' own names and addresses are refused, in every
 * spelling the URL parser or the socket layer accepts: decimal, hex and octal IPv4 (the WHATWG
 * parser normalises them), IPv4 inside IPv6 (mapped, compatible, translated, NAT64, 6to4), zone ids,
 * trailing dots, any case. Private ranges (10/8, 192.168/16, fc00::/7) and loopback stay allowed:
 * self-hosted upstreams live there. Names are compared as written, not resolved: a DNS name that
 * resolves to a link-local address needs a network policy, as documented.
 */
export type UpstreamGuard = (url: string) => string | undefined;

/** Host names of metadata services (GCP, Azure, AWS, Tencent, Equinix Metal), compared without trailing dots. */
const METADATA_NAMES = new Set([
  'metadata.google.internal',
  'metadata',
  'metadata.azure.internal',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
  'metadata.packet.net',
  'metadata.platformequinix.com',
]);

const DENIED = new BlockList();
DENIED.addSubnet('169.254.0.0', 16, 'ipv4');
DENIED.addSubnet('fe80::', 10, 'ipv6');
// Metadata services outside link-local space, which is otherwise allowed (private, carrier-grade NAT, unique-local):
DENIED.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud
DENIED.addAddress('192.0.0.192', 'ipv4'); // Oracle Cloud Classic
DENIED.addAddress('168.63.129.16', 'ipv4'); // Azure's WireServer
DENIED.addAddress('fd00:ec2::254', 'ipv6'); // AWS IMDS over IPv6
DENIED.addAddress('fd00:ec2::23', 'ipv6'); // EKS Pod Identity agent over IPv6
DENIED.addAddress('fd20:ce::254', 'ipv6'); // GCP metadata over IPv6

/**
 * Why `url` may not be an upstream, or undefined where it may. Pure: the host is taken from the
 * URL as written (the WHATWG parser's normal form), never resolved.
 */
export function linkLocalRefusal(url: string): string | undefined {
  const host = hostOf(url);
  // A URL that does not parse reaches no one: its fetch fails before any connection.
  const address = host === undefined ? undefined : deniedAddress(host);
  if (address !== undefined) return `points at a link-local or cloud metadata address (${address})`;
  return undefined;
}

/** The guard as configured: GATEWAY_ALLOW_LINK_LOCAL_UPSTREAMS=true lifts it (GATEWAY_DENY_LINK_LOCAL_UPSTREAMS=true keeps it on regardless). */
export function buildUpstreamGuard(config: { allowLinkLocalUpstreams?: boolean | undefined }): UpstreamGuard {
  if (config.allowLinkLocalUpstreams === true) return () => undefined;
  return (url) => {
    const refusal = linkLocalRefusal(url);
    return refusal && `${refusal}; GATEWAY_ALLOW_LINK_LOCAL_UPSTREAMS=true allows it`;
  };
}

/** The first of `urls` the guard refuses, as `'<field>' <why>`, with the field for a 400's `param`. */
export function refusedUrl(guard: UpstreamGuard, urls: readonly { field: string; url: string }[]): { field: string; message: string } | undefined {
  for (const { field, url } of urls) {
    const refusal = guard(url);
    if (refusal) return { field, message: `'${field}' ${refusal}` };
  }
  return undefined;
}

/**
 * The host, lower-cased, without brackets, zone id or trailing dots; undefined when the URL does
 * not parse. A zone id (`[fe80::1%25eth0]`) is not WHATWG syntax, but other URL readers take it:
 * its host is read from the authority as written, so the address behind it is still judged.
 */
function hostOf(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    const zoned = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?\[([0-9a-f:.]+)%[^\]]*\]/i.exec(url.trim());
    if (!zoned) return undefined;
    host = zoned[1]!;
  }
  return host.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.+$/, '');
}

/** The denied address (or name) `host` is or carries, as shown in the refusal; undefined if none. */
function deniedAddress(host: string): string | undefined {
  const family = isIP(host);
  if (family === 4) return DENIED.check(host, 'ipv4') ? host : undefined;
  if (family === 0) return METADATA_NAMES.has(host) ? host : undefined;
  const embedded = embeddedIpv4(host);
  if (embedded !== undefined && DENIED.check(embedded, 'ipv4')) return `${embedded} as ${host}`;
  return DENIED.check(host, 'ipv6') ? host : undefined;
}

/**
 * The IPv4 address an IPv6 address carries where the network may deliver it to that IPv4 host:
 * mapped (::ffff:0:0/96), compatible (::/96), translated (::ffff:0:0:0/96), NAT64 (64:ff9b::/96 and
 * the local-use 64:ff9b:1::/48, address in the last 32 bits) and 6to4 (2002::/16, bits 16 to 48).
 */
function embeddedIpv4(address: string): string | undefined {
  const groups = ipv6Groups(address);
  if (!groups) return undefined;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  const last32 = (): [number, number] => [groups[6]!, groups[7]!];
  let pair: [number, number] | undefined;
  if (zeros(0, 5) && (groups[5] === 0xffff || groups[5] === 0)) pair = last32();
  else if (zeros(0, 4) && groups[4] === 0xffff && groups[5] === 0) pair = last32();
  else if (groups[0] === 0x64 && groups[1] === 0xff9b && (zeros(2, 6) || groups[2] === 1)) pair = last32();
  else if (groups[0] === 0x2002) pair = [groups[1]!, groups[2]!];
  if (!pair) return undefined;
  return [pair[0] >> 8, pair[0] & 0xff, pair[1] >> 8, pair[1] & 0xff].join('.');
}

/** The eight 16-bit groups of a valid IPv6 address (with or without a dotted IPv4 tail). */
function ipv6Groups(address: string): number[] | undefined {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const octets = dotted[1]!.split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((octets[0]! << 8) | octets[1]!).toString(16)}:${((octets[2]! << 8) | octets[3]!).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => Number.parseInt(group, 16)) : []);
  const front = parse(head);
  const back = parse(tail);
  const groups = tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : undefined;
}
