import type { GatewayError } from '../errors.js';
import type { TranslateContext, TranslatorPair } from '../contracts/translator.js';
import type { UpstreamCall } from '../contracts/upstream-call.js';

/**
 * Another vendor's translator pair, its calls sent elsewhere: a cloud that hosts the vendor's
 * models speaks the same bodies at its own paths (Azure's deployments, Vertex's publishers).
 * `errors` may read the cloud's own error shapes first; undefined leaves them to the pair.
 */
export function retargetPair<P extends Pick<TranslatorPair<any, any>, 'toUpstream' | 'fromUpstreamError'>>(
  pair: P,
  place: (call: UpstreamCall, ctx: TranslateContext) => UpstreamCall,
  errors?: (status: number, body: unknown) => GatewayError | undefined,
): P {
  return {
    ...pair,
    toUpstream: (req: unknown, ctx: TranslateContext) => place(pair.toUpstream(req, ctx), ctx),
    fromUpstreamError: (status: number, body: unknown) => errors?.(status, body) ?? pair.fromUpstreamError(status, body),
  };
}

/** One of two pairs by the upstream model (Vertex: Gemini or Claude); errors by the shape of their body. */
export function pairByModel<P extends TranslatorPair<any, any>>(isSecond: (upstreamModel: string) => boolean, first: P, second: P, isSecondError: (body: unknown) => boolean): P {
  const pick = (ctx: TranslateContext): P => (isSecond(ctx.upstreamModel) ? second : first);
  return {
    ...first,
    toUpstream: (req: unknown, ctx: TranslateContext) => pick(ctx).toUpstream(req, ctx),
    fromUpstream: (res: unknown, ctx: TranslateContext) => pick(ctx).fromUpstream(res, ctx),
    fromUpstreamText: (text: string, ctx: TranslateContext) => pick(ctx).fromUpstreamText?.(text, ctx),
    fromUpstreamChunks: (chunks: Buffer[], ctx: TranslateContext) => pick(ctx).fromUpstreamChunks?.(chunks, ctx),
    createStreamTranslator: (ctx: TranslateContext) => pick(ctx).createStreamTranslator(ctx),
    fromUpstreamError: (status: number, body: unknown) => (isSecondError(body) ? second : first).fromUpstreamError(status, body),
  };
}
