import { createHash, createHmac } from 'node:crypto';

/**
 * Volcengine OpenAPI request signing (HMAC-SHA256, "Signature V4" style; volcengine-ark.md
 * "Asset library", https://www.volcengine.com/docs/6369/67269): a canonical request over the
 * method, path, sorted query, the signed headers and the body hash, signed with a key derived
 * from the secret key through date, region, service and "request".
 */
export interface SignInput {
  method: string;
  host: string;
  path: string;
  query: Record<string, string>;
  body: string;
  accessKey: string;
  secretKey: string;
  region: string;
  service: string;
  /** Unix milliseconds. */
  now: number;
  contentType?: string;
}

const sha256Hex = (data: string): string => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();
/** RFC 3986 encoding, as the canonical query requires. */
const encode = (value: string): string => encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Returns the headers to send: Host, Content-Type, X-Date, X-Content-Sha256 and Authorization. */
export function signVolcengineRequest(input: SignInput): Record<string, string> {
  const xDate = new Date(input.now).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const shortDate = xDate.slice(0, 8);
  const contentType = input.contentType ?? 'application/json';
  const payloadHash = sha256Hex(input.body);
  const canonicalQuery = Object.keys(input.query)
    .sort()
    .map((k) => `${encode(k)}=${encode(input.query[k]!)}`)
    .join('&');
  const signedHeaders = 'content-type;host;x-content-sha256;x-date';
  const canonicalHeaders = `content-type:${contentType}\nhost:${input.host}\nx-content-sha256:${payloadHash}\nx-date:${xDate}\n`;
  const canonicalRequest = [input.method.toUpperCase(), input.path || '/', canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const scope = `${shortDate}/${input.region}/${input.service}/request`;
  const stringToSign = ['HMAC-SHA256', xDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(input.secretKey, shortDate), input.region), input.service), 'request');
  const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
  return {
    host: input.host,
    'content-type': contentType,
    'x-date': xDate,
    'x-content-sha256': payloadHash,
    authorization: `HMAC-SHA256 Credential=${input.accessKey}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
}
