import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * Request headers as the request log stores them (issue 22): their JSON, deflated against a
 * dictionary of what clients send (the SDKs' names and common values), so the repeated part of
 * every row costs a few bytes. A first byte names the dictionary, so a later one can be added
 * while rows packed with this one are still read.
 */
const DICTIONARIES: Record<number, Buffer> = {
  1: Buffer.from(
    [
      '"x-stainless-read-timeout":"600","x-stainless-async":"false","x-stainless-runtime":"CPython","x-stainless-lang":"python",',
      '"user-agent":"OpenAI/Python 1.","x-stainless-package-version":"1.","x-stainless-runtime-version":"3.12.',
      '"anthropic-version":"2023-06-01","user-agent":"Anthropic/JS 0.","x-goog-api-client":"google-genai-sdk/","x-goog-api-key":"[masked]","x-api-key":"[masked]",',
      '"x-stainless-timeout":"600000","x-stainless-retry-count":"0","x-stainless-runtime-version":"v22.","x-stainless-runtime":"node",',
      '"x-stainless-arch":"x64","x-stainless-arch":"arm64","x-stainless-os":"MacOS","x-stainless-os":"Linux","x-stainless-package-version":"',
      '"x-stainless-lang":"js","user-agent":"OpenAI/JS ","x-request-id":"","traceparent":"00-","tracestate":"","accept-language":"*","sec-fetch-mode":"cors",',
      '"content-length":"","accept-encoding":"gzip, deflate, br","accept-encoding":"gzip, deflate","user-agent":"curl/8.",',
      '{"host":"","connection":"keep-alive","accept":"application/json","content-type":"application/json","authorization":"Bearer [masked]",',
    ].join(''),
  ),
};
const CURRENT = 1;

/** A small window and memory level: a few hundred bytes per row never needs zlib's 256 KB defaults. */
const OPTIONS = { windowBits: 11, memLevel: 4 } as const;

export function packHeaders(headers: Record<string, string>): Buffer {
  const packed = deflateRawSync(JSON.stringify(headers), { ...OPTIONS, dictionary: DICTIONARIES[CURRENT] });
  const out = Buffer.allocUnsafe(packed.length + 1);
  out[0] = CURRENT;
  packed.copy(out, 1);
  return out;
}

export function unpackHeaders(bytes: Uint8Array): Record<string, string> {
  const dictionary = DICTIONARIES[bytes[0]!];
  if (!dictionary) throw new Error(`packed headers of an unknown dictionary (${bytes[0]})`);
  const json = inflateRawSync(bytes.subarray(1), { ...OPTIONS, dictionary }).toString('utf8');
  return JSON.parse(json) as Record<string, string>;
}
