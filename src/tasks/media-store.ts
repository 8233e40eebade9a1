import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyReply } from 'fastify';
import type { Dispatcher } from 'undici';
import { GatewayError } from '../errors.js';
import { requestWith } from '../gateway/undici-agent.js';

/** Generated videos we keep: `<dataDir>/media/videos/<32 hex>.mp4`, public by unguessable name. */
export const VIDEO_FILE_PATTERN = /^[0-9a-f]{32}\.mp4$/;
export const MAX_VIDEO_BYTES = 512 * 1024 * 1024;
const DOWNLOAD_TIMEOUT_MS = 120_000;

export const videoDir = (dataDir: string): string => join(dataDir, 'media', 'videos');

export interface DownloadedVideo {
  file: string;
  bytes: number;
}

/**
 * Copies an upstream result (a signed URL valid ~24 h) to disk once, streamed and size-bounded.
 * Sent without the channel's credentials: result URLs are often on another host (object storage).
 */
export async function downloadVideo(options: { dispatcher: Dispatcher; url: string; dataDir: string; signal: AbortSignal; maxBytes?: number }): Promise<DownloadedVideo> {
  const maxBytes = options.maxBytes ?? MAX_VIDEO_BYTES;
  const url = new URL(options.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream result URL is not http(s)');
  const dir = videoDir(options.dataDir);
  await mkdir(dir, { recursive: true });
  const file = `${randomBytes(16).toString('hex')}.mp4`;
  const partial = join(dir, `${file}.part`);
  const response = await requestWith(options.dispatcher, {
    origin: url.origin,
    path: url.pathname + url.search,
    method: 'GET',
    signal: options.signal,
    headersTimeout: DOWNLOAD_TIMEOUT_MS,
    bodyTimeout: DOWNLOAD_TIMEOUT_MS,
  });
  if (response.statusCode !== 200) {
    await response.body.dump();
    throw new GatewayError('GW_UPSTREAM_ERROR', `The upstream result file answered HTTP ${response.statusCode}`);
  }
  let bytes = 0;
  const limiter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > maxBytes) done(new GatewayError('GW_UPSTREAM_BAD_RESPONSE', `The upstream result file is larger than ${maxBytes} bytes`));
      else done(null, chunk);
    },
  });
  try {
    await pipeline(response.body, limiter, createWriteStream(partial));
    await rename(partial, join(dir, file));
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return { file, bytes };
}

/**
 * Sends a stored video, honouring a single `Range: bytes=a-b` (players seek with it).
 * Replies 404 through the caller's error envelope when the file is missing.
 */
export async function sendVideoFile(reply: FastifyReply, dataDir: string, file: string, range: string | undefined): Promise<FastifyReply> {
  if (!VIDEO_FILE_PATTERN.test(file)) throw new GatewayError('GW_RESOURCE_NOT_FOUND', 'No such video file');
  const path = join(videoDir(dataDir), file);
  const size = await stat(path).then(
    (s) => s.size,
    () => undefined,
  );
  if (size === undefined) throw new GatewayError('GW_RESOURCE_NOT_FOUND', 'No such video file');
  reply.type('video/mp4').header('accept-ranges', 'bytes').header('cache-control', 'private, max-age=86400');
  const match = range ? /^bytes=(\d*)-(\d*)$/.exec(range.trim()) : null;
  if (match && (match[1] || match[2]) && size > 0) {
    const start = match[1] ? Number(match[1]) : Math.max(0, size - Number(match[2]));
    const end = match[1] && match[2] ? Math.min(Number(match[2]), size - 1) : size - 1;
    if (start > end || start >= size) return reply.code(416).header('content-range', `bytes */${size}`).send();
    reply.code(206).header('content-range', `bytes ${start}-${end}/${size}`).header('content-length', String(end - start + 1));
    return reply.send(createReadStream(path, { start, end }));
  }
  // An explicit `end` lets the stream finish with its last bytes instead of one more read for EOF;
  // otherwise the client can have the whole body while the response is still open, and a
  // graceful close then waits for that keep-alive connection's timeout.
  return reply.header('content-length', String(size)).send(createReadStream(path, { start: 0, end: Math.max(0, size - 1) }));
}
