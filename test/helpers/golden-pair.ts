import { expect } from 'vitest';
import type { OutEvent } from '../../src/contracts/sse-event.js';
import type { StreamBytesDecoder, StreamTranslator, TranslateContext } from '../../src/contracts/translator.js';
import type { ChannelCredentials, UpstreamCall } from '../../src/contracts/upstream-call.js';
import { isGatewayError, type GatewayError } from '../../src/errors.js';
import { parseSseText } from '../../src/sse/parse.js';
import { expectGolden, expectGoldenStream, goldenContext, type GoldenCase } from './golden.js';

/**
 * One golden case through any translator pair (STYLE.md §9), by the files its folder holds:
 *   client-request.json  → upstream-request.json   the call, placed by the vendor's `routeCall`
 *                                                   when case.json names `credentials`
 *   client-request.json  → client-error.json       a request the translator refuses (no upstream file)
 *   upstream-response.json → client-response.json + usage.json
 *   upstream-response.json + case.json `status` → client-error.json (fromUpstreamError)
 *   upstream-stream.sse  → client-stream.sse + usage.json, and client-error.json when the stream fails
 * Upstreams whose streams are not SSE (Bedrock's binary event stream) give `upstreamBytes`, the
 * reads as the network would deliver them, which go through the pair's own decoder first.
 * UPDATE_GOLDEN=1 rewrites the goldens.
 */
export interface GoldenPairMeta {
  family?: string;
  status?: number;
  /** The channel's settings the vendor's `routeCall` reads (Azure's api-version, Vertex's project). */
  credentials?: ChannelCredentials;
  /** Sends client-request.json's own text as the pass-through body (Anthropic-native clients). */
  clientTextPassThrough?: boolean;
  /** Embeddings: the gateway's token count for upstreams that report none. */
  gatewayInputTokens?: number;
}

/** The parts of a pair a golden case drives (embeddings pairs have no stream translator). */
export interface GoldenPair {
  toUpstream(req: never, ctx: TranslateContext): UpstreamCall;
  fromUpstream(res: unknown, ctx: TranslateContext): { body: unknown; usage: unknown };
  fromUpstreamText?(text: string, ctx: TranslateContext): { text: string; usage: unknown } | undefined;
  fromUpstreamChunks?(chunks: Buffer[], ctx: TranslateContext): { chunks: Buffer[]; usage: unknown } | undefined;
  createStreamTranslator?(ctx: TranslateContext): StreamTranslator;
  createStreamDecoder?(ctx: TranslateContext): StreamBytesDecoder;
  fromUpstreamError(status: number, body: unknown): GatewayError;
}

export type RouteCall = (call: UpstreamCall, credentials: ChannelCredentials) => UpstreamCall;

export interface GoldenPairOptions {
  /** The vendor's `routeCall`, for cases whose case.json names the channel's `credentials`. */
  routeCall?: RouteCall | undefined;
  /** The case's upstream stream as byte reads, for non-SSE upstreams; undefined where the case has none. */
  upstreamBytes?: ((golden: GoldenCase) => Buffer[] | undefined) | undefined;
}

function contextOf(golden: GoldenCase): TranslateContext {
  const meta = golden.meta as GoldenCase['meta'] & GoldenPairMeta;
  const ctx = goldenContext(golden.meta.context);
  if (meta.clientTextPassThrough) ctx.passThrough = { ...ctx.passThrough, text: golden.text('client-request.json')! };
  if (ctx.vectors && meta.gatewayInputTokens !== undefined) ctx.vectors = { ...ctx.vectors, inputTokens: () => meta.gatewayInputTokens! };
  return ctx;
}

export async function runPairCase(golden: GoldenCase, pair: GoldenPair, options: GoldenPairOptions = {}): Promise<void> {
  const meta = golden.meta as GoldenCase['meta'] & GoldenPairMeta;
  const ctx = contextOf(golden);
  const bytes = options.upstreamBytes?.(golden);
  const isUpstreamAnswered = golden.has('upstream-response.json') || golden.has('upstream-stream.sse') || bytes !== undefined;

  if (golden.has('client-request.json')) {
    const request = structuredClone(golden.json('client-request.json')) as never;
    if (!isUpstreamAnswered) {
      expectGolden(golden, 'client-error.json', errorOf(() => pair.toUpstream(request, ctx)));
      return;
    }
    let call = pair.toUpstream(request, ctx);
    if (meta.credentials) {
      if (!options.routeCall) throw new Error(`${golden.name}: case.json names credentials but the vendor has no routeCall`);
      call = options.routeCall(call, meta.credentials);
    }
    expectGolden(golden, 'upstream-request.json', readableCall(call));
  }

  if (meta.status !== undefined) {
    const error = pair.fromUpstreamError(meta.status, golden.json('upstream-response.json'));
    expectGolden(golden, 'client-error.json', errorView(error));
  } else if (golden.has('upstream-response.json')) {
    const { body, usage } = pair.fromUpstream(golden.json('upstream-response.json'), ctx);
    expectGolden(golden, 'client-response.json', body);
    expectGolden(golden, 'usage.json', usage);
    expectFastPathsAgree(golden, pair, ctx);
  } else if (isUpstreamAnswered) {
    const { out, usage, error } = await translateStream(pair, ctx, bytes ? decodeReads(pair, ctx, bytes) : golden.text('upstream-stream.sse')!);
    await expectGoldenStream(golden, out);
    expectGolden(golden, 'usage.json', usage ?? null);
    if (error || golden.has('client-error.json')) expectGolden(golden, 'client-error.json', error ? errorView(error) : null);
  }
}

/**
 * The same answer through the pair's text and chunk fast paths (what dispatch tries first), where
 * they take it: the client must get the same body and usage whichever path ran.
 */
function expectFastPathsAgree(golden: GoldenCase, pair: GoldenPair, ctx: TranslateContext): void {
  const text = golden.text('upstream-response.json')!;
  const fromChunks = pair.fromUpstreamChunks?.([Buffer.from(text)], ctx);
  if (fromChunks) {
    expect(JSON.parse(Buffer.concat(fromChunks.chunks).toString('utf8'))).toEqual(golden.json('client-response.json'));
    expect(fromChunks.usage).toEqual(golden.json('usage.json'));
  }
  const fromText = pair.fromUpstreamText?.(text, ctx);
  if (fromText) {
    expect(JSON.parse(fromText.text)).toEqual(golden.json('client-response.json'));
    expect(fromText.usage).toEqual(golden.json('usage.json'));
  }
}

/** A string body (pass-through text) shown parsed, so the golden reads as the JSON the vendor gets. */
function readableCall(call: UpstreamCall): unknown {
  if (typeof call.body !== 'string') return call;
  return { ...call, body: JSON.parse(call.body) as unknown, bodyIsText: true };
}

const errorView = (error: GatewayError) => ({ status: error.status, code: error.code, message: error.message, ...(error.param ? { param: error.param } : {}) });

function errorOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    if (isGatewayError(error)) return errorView(error);
    throw error;
  }
  return 'no error';
}

/** As dispatch does: the upstream's bytes through the pair's decoder (if any), each event translated, onEnd, or the error that ended it. */
async function translateStream(pair: GoldenPair, ctx: TranslateContext, upstreamSse: string): Promise<{ out: OutEvent[]; usage: unknown; error: GatewayError | undefined }> {
  const translator = pair.createStreamTranslator!(ctx);
  const out: OutEvent[] = [];
  let error: GatewayError | undefined;
  try {
    for (const event of await parseSseText(upstreamSse)) out.push(...translator.onEvent(event));
    out.push(...translator.onEnd());
  } catch (thrown) {
    if (!isGatewayError(thrown)) throw thrown;
    error = thrown;
  }
  return { out, usage: translator.usage() ?? null, error };
}

function decodeReads(pair: GoldenPair, ctx: TranslateContext, reads: Buffer[]): string {
  const decoder = pair.createStreamDecoder!(ctx);
  const text = reads.map((read) => decoder.push(read).toString('utf8')).join('');
  decoder.end();
  return text;
}
