import { call } from './gateway.js';

/** Polls `path` until `isDone(json)` holds; returns every body seen, oldest first. */
export async function pollUntil(
  gateway: { url: string },
  path: string,
  isDone: (json: any) => boolean,
  options: { timeoutMs?: number; intervalMs?: number; headers?: Record<string, string> } = {},
): Promise<any[]> {
  const seen: any[] = [];
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    const response = await call(gateway, 'GET', path, undefined, options.headers);
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${response.text}`);
    seen.push(response.json);
    if (isDone(response.json)) return seen;
    if (Date.now() > deadline) throw new Error(`GET ${path} did not finish: ${JSON.stringify(response.json)}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}

/** An MP4 file starts with a box whose type is `ftyp` (ISO/IEC 14496-12). */
export const isMp4 = (bytes: Uint8Array): boolean => bytes.length > 8 && Buffer.from(bytes.subarray(4, 8)).toString('latin1') === 'ftyp';

export async function fetchBytes(url: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string | null; bytes: Uint8Array }> {
  const response = await fetch(url, { headers });
  return { status: response.status, type: response.headers.get('content-type'), bytes: new Uint8Array(await response.arrayBuffer()) };
}
