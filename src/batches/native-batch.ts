/**
 * Native vendor batches (issue 46, item 3a): a channel whose vendor has a batch API gets the lines
 * routed to it as ONE upstream batch, performed here over the gateway's upstream client (the
 * channel's base URL, `routeCall`, the composed authorize step), so credentials, signing and
 * guards apply as they do to sync calls. The vendor's facts are its pure `batch` adapter
 * (contracts/batch-adapter.ts); each line's body is translated by the vendor's own sync pair
 * (`pairs[family].toUpstream`) and each answer back by its `fromUpstream`, so an outcome is what
 * the sync endpoint would have answered, usage included; a failed line carries OpenAI's error object.
 *
 * The seam the batch runner calls:
 *
 *   nativeBatchFor(channel, endpoint, deps): NativeBatchExecutor | undefined
 *     undefined: the channel runs no native batch for this endpoint (no batch API, `batch: gateway`,
 *     or the vendor's default for its base URL): the gateway runs the lines itself.
 *   executor.oneModelPerBatch            group lines by model before submitting (OpenAI).
 *   executor.submit(channel, endpoint, lines, signal) → { upstreamId, refused }
 *     lines: bodies in OpenAI's protocol with `model` the PUBLIC name (the channel's upstream name
 *     goes in here). `refused`: outcomes of lines the translator refused (never sent upstream).
 *     Where every line was refused no batch is created and upstreamId is NO_UPSTREAM_BATCH, which
 *     polls as ended with no results.
 *   executor.poll(channel, upstreamId, signal) → { state: 'running' | 'ended' }
 *   executor.results(channel, upstreamId, endpoint, signal, { modelOf }) → AsyncIterable<BatchLineOutcome>
 *     streamed (result files are read line by line). `modelOf(customId)` gives the line's public
 *     model (echoed in answers); without it, the channel's public name for the upstream model.
 *     Lines absent from the results (a batch the vendor refused whole throws instead) are the
 *     caller's to fail.
 *   executor.cancel(channel, upstreamId, signal)
 * Upstream failures throw GatewayErrors, redacted of the channel's secrets.
 */
import type { BatchEndpoint, BatchLine, BatchLineOutcome, BatchLineUsage } from '../contracts/batch-line.js';
import type { BatchAdapter, UpstreamBatchRequest, UpstreamBatchResult } from '../contracts/batch-adapter.js';
import type { TranslateContext } from '../contracts/translator.js';
import type { UpstreamCall } from '../contracts/upstream-call.js';
import type { Usage } from '../contracts/usage.js';
import { GatewayError, isGatewayError } from '../errors.js';
import { cancellationOf } from '../gateway/cancellation.js';
import type { Channel } from '../gateway/channel.js';
import { redactBody, redactError } from '../gateway/channel-redactor.js';
import { readErrorBody, type UpstreamClient, type UpstreamResponse } from '../gateway/upstream-client.js';
import { sanitizeUpstreamMessage } from '../providers/upstream-errors.js';
import { jsonLinesOf } from './native-batch-lines.js';

export interface NativeBatchDeps {
  upstream: Pick<UpstreamClient, 'send'>;
  /** Unix ms (the translators' `now`); Date.now when absent. */
  now?: () => number;
}

export interface NativeBatchResultsOptions {
  /** The public model a line named, by custom_id (the batch runner's stored lines). */
  modelOf?: (customId: string) => string | undefined;
}

export interface NativeBatchExecutor {
  /** The vendor takes one model per batch: submit the lines of one model at a time. */
  readonly oneModelPerBatch: boolean;
  submit(channel: Channel, endpoint: BatchEndpoint, lines: readonly BatchLine[], signal: AbortSignal): Promise<{ upstreamId: string; refused: BatchLineOutcome[] }>;
  poll(channel: Channel, upstreamId: string, signal: AbortSignal): Promise<{ state: 'running' | 'ended' }>;
  results(channel: Channel, upstreamId: string, endpoint: BatchEndpoint, signal: AbortSignal, options?: NativeBatchResultsOptions): AsyncIterable<BatchLineOutcome>;
  cancel(channel: Channel, upstreamId: string, signal: AbortSignal): Promise<void>;
}

/** The upstream id of a submit whose every line was refused: nothing was created upstream. */
export const NO_UPSTREAM_BATCH = '';

/** The endpoint family whose pair translates a batch endpoint's lines. */
const FAMILY_OF = {
  '/v1/chat/completions': 'chat-completions',
  '/v1/embeddings': 'embeddings',
  '/v1/responses': 'responses',
} as const satisfies Record<BatchEndpoint, string>;

/** The parts of a sync translator pair a batch line needs (every family's pair has them). */
interface LinePair {
  toUpstream(req: unknown, ctx: TranslateContext): UpstreamCall;
  fromUpstream(res: unknown, ctx: TranslateContext): { body: unknown; usage: Usage };
  fromUpstreamError(status: number, body: unknown): GatewayError;
}

/** `native` or `gateway`: the channel's `batch` setting, else its vendor's default for its base URL. */
export function batchModeOf(channel: Channel): 'native' | 'gateway' {
  const adapter = channel.provider.batch;
  if (!adapter) return 'gateway';
  return channel.batch ?? (adapter.nativeByDefault(channel.isSimulator ? undefined : channel.baseUrl) ? 'native' : 'gateway');
}

/** The executor for a channel that offers native batches for this endpoint, else undefined (the gateway runs the lines itself). */
export function nativeBatchFor(channel: Channel, endpoint: BatchEndpoint, deps: NativeBatchDeps): NativeBatchExecutor | undefined {
  const adapter = channel.provider.batch;
  if (!adapter || !adapter.endpoints.includes(endpoint) || !pairOf(channel, endpoint)) return undefined;
  if (batchModeOf(channel) !== 'native') return undefined;
  return new AdapterBatchExecutor(adapter, deps);
}

function pairOf(channel: Channel, endpoint: BatchEndpoint): LinePair | undefined {
  return channel.provider.pairs[FAMILY_OF[endpoint]] as LinePair | undefined;
}

class AdapterBatchExecutor implements NativeBatchExecutor {
  readonly oneModelPerBatch: boolean;

  constructor(
    private readonly adapter: BatchAdapter,
    private readonly deps: NativeBatchDeps,
  ) {
    this.oneModelPerBatch = adapter.oneModelPerBatch;
  }

  async submit(channel: Channel, endpoint: BatchEndpoint, lines: readonly BatchLine[], signal: AbortSignal): Promise<{ upstreamId: string; refused: BatchLineOutcome[] }> {
    const pair = pairOf(channel, endpoint)!;
    const refused: BatchLineOutcome[] = [];
    const requests: UpstreamBatchRequest[] = [];
    const models = new Set<string>();
    for (const line of lines) {
      const upstreamModel = channel.models[line.model];
      if (upstreamModel === undefined) {
        refused.push(errorResponse(line.customId, new GatewayError('GW_MODEL_UNSUPPORTED', `The model '${line.model}' is not served by this channel`, { param: 'model' })));
        continue;
      }
      const idProblem = this.adapter.customIdProblem?.(line.customId);
      if (idProblem !== undefined) {
        refused.push(errorResponse(line.customId, new GatewayError('GW_REQ_INVALID_PARAM', idProblem, { param: 'custom_id' })));
        continue;
      }
      try {
        // A batch line is answered whole, never streamed.
        const { stream: _stream, stream_options: _options, ...body } = line.body;
        requests.push({ customId: line.customId, call: pair.toUpstream(body, this.contextFor(line.model, upstreamModel, line.customId, endpoint, body)) });
        models.add(upstreamModel);
      } catch (error) {
        if (!isGatewayError(error)) throw error;
        refused.push(errorResponse(line.customId, error));
      }
    }
    if (requests.length === 0) return { upstreamId: NO_UPSTREAM_BATCH, refused };
    if (this.adapter.oneModelPerBatch && models.size > 1) throw new GatewayError('GW_REQ_INVALID_PARAM', "This channel's vendor takes one model per batch: submit each model's lines apart", { param: 'model' });
    let uploaded: { fileId: string } | undefined;
    if (this.adapter.toUploadRequest && this.adapter.fromUploadResponse) {
      uploaded = this.adapter.fromUploadResponse(await this.json(channel, this.adapter.toUploadRequest(endpoint, requests), signal));
    }
    const created = this.adapter.fromCreateResponse(await this.json(channel, this.adapter.toCreateRequest(endpoint, requests, uploaded), signal));
    return { upstreamId: created.upstreamId, refused };
  }

  async poll(channel: Channel, upstreamId: string, signal: AbortSignal): Promise<{ state: 'running' | 'ended' }> {
    if (upstreamId === NO_UPSTREAM_BATCH) return { state: 'ended' };
    const status = this.adapter.fromPollResponse(await this.json(channel, this.adapter.toPollRequest(upstreamId), signal), upstreamId);
    return { state: status.state };
  }

  async *results(channel: Channel, upstreamId: string, endpoint: BatchEndpoint, signal: AbortSignal, options: NativeBatchResultsOptions = {}): AsyncGenerator<BatchLineOutcome> {
    if (upstreamId === NO_UPSTREAM_BATCH) return;
    const status = this.adapter.fromPollResponse(await this.json(channel, this.adapter.toPollRequest(upstreamId), signal), upstreamId);
    if (status.state !== 'ended') throw new GatewayError('GW_CONFLICT', 'The upstream batch has not ended yet');
    if (status.failure !== undefined && status.downloads.length === 0 && status.inline.length === 0) {
      const reason = sanitizeUpstreamMessage(channel.redact ? channel.redact(status.failure) : status.failure);
      throw new GatewayError('GW_UPSTREAM_BAD_REQUEST', `The upstream refused the batch: ${reason}`);
    }
    const pair = pairOf(channel, endpoint)!;
    for (const entry of status.inline) yield this.outcomeOf(this.adapter.fromResultLine(entry), channel, endpoint, pair, options);
    for (const call of status.downloads) {
      const response = await this.send(channel, call, signal);
      for await (const line of jsonLinesOf(response.body)) yield this.outcomeOf(this.adapter.fromResultLine(line), channel, endpoint, pair, options);
    }
  }

  async cancel(channel: Channel, upstreamId: string, signal: AbortSignal): Promise<void> {
    if (upstreamId === NO_UPSTREAM_BATCH) return;
    const response = await this.send(channel, this.adapter.toCancelRequest(upstreamId), signal);
    response.body.destroy();
  }

  private outcomeOf(result: UpstreamBatchResult, channel: Channel, endpoint: BatchEndpoint, pair: LinePair, options: NativeBatchResultsOptions): BatchLineOutcome {
    const { customId } = result;
    if ('failure' in result) return { customId, error: { code: FAILURE_CODE[result.failure.code], message: result.failure.message } };
    if (result.status < 200 || result.status >= 300) {
      return errorResponse(customId, redactError(pair.fromUpstreamError(result.status, redactBody(result.body, channel.redact)), channel.redact));
    }
    const model = options.modelOf?.(customId) ?? publicModelOf(channel, result.body);
    try {
      const { body, usage } = pair.fromUpstream(result.body, this.contextFor(model, channel.models[model] ?? model, customId, endpoint, undefined));
      return { customId, response: { statusCode: 200, body }, usage: lineUsage(usage) };
    } catch (error) {
      if (!isGatewayError(error)) throw error;
      return errorResponse(customId, redactError(error, channel.redact));
    }
  }

  private contextFor(model: string, upstreamModel: string, customId: string, endpoint: BatchEndpoint, body: Record<string, unknown> | undefined): TranslateContext {
    const ctx: TranslateContext = { model, upstreamModel, requestId: `batch_req_${customId}`, now: Math.floor((this.deps.now ?? Date.now)() / 1000), includeUsage: false };
    if (endpoint === '/v1/embeddings' && body) ctx.vectors = { encoding: body.encoding_format === 'base64' ? 'base64' : 'float', inputs: embeddingInputs(body.input) };
    return ctx;
  }

  private async json(channel: Channel, call: UpstreamCall, signal: AbortSignal): Promise<unknown> {
    const response = await this.send(channel, call, signal);
    try {
      return await response.body.json();
    } catch (error) {
      throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream batch API returned a body that is not JSON', { cause: error });
    }
  }

  /** One call of the batch API: an error status becomes the adapter's GatewayError, redacted. */
  private async send(channel: Channel, call: UpstreamCall, signal: AbortSignal): Promise<UpstreamResponse> {
    const response = await this.deps.upstream.send(channel, call, cancellationOf(signal));
    if (response.status >= 400) {
      const body = redactBody(await readErrorBody(response.body), channel.redact);
      throw redactError(this.adapter.fromUpstreamError(response.status, body), channel.redact);
    }
    return response;
  }
}

/** OpenAI's codes for lines a batch never ran (its error file's). */
const FAILURE_CODE = { cancelled: 'batch_cancelled', expired: 'batch_expired', failed: 'batch_failed' } as const;

/**
 * A failed line's body: OpenAI's error object, as batch output and error files carry it whatever
 * the endpoint (`{error:{message, type, param, code}}`), with the gateway's code and the status the
 * same request alone would have got.
 */
function errorResponse(customId: string, error: GatewayError): BatchLineOutcome {
  return { customId, response: { statusCode: error.status, body: { error: { message: error.message, type: error.kind.type, param: error.param ?? null, code: error.kind.publicCode } } } };
}

function lineUsage(usage: Usage): BatchLineUsage {
  return { inputTokens: usage.promptTokens, outputTokens: usage.completionTokens, ...(usage.cachedTokens ? { cachedInputTokens: usage.cachedTokens } : {}) };
}

/** Without the runner's record: the first public name the channel gives the model the answer names. */
function publicModelOf(channel: Channel, body: unknown): string {
  const named = (body as { model?: unknown } | null)?.model;
  const entries = Object.entries(channel.models);
  // Exact first: `gpt-4.1-mini` must not be taken for `gpt-4.1`; then a dated version of a name (`gpt-4.1-2025-04-14`).
  const match = typeof named === 'string' ? (entries.find(([, upstream]) => upstream === named) ?? entries.find(([, upstream]) => named.startsWith(`${upstream}-`))) : undefined;
  return (match ?? entries[0])?.[0] ?? (typeof named === 'string' ? named : '');
}

/** How many vectors an embeddings body asks for: one per string or token array. */
function embeddingInputs(input: unknown): number {
  if (!Array.isArray(input)) return 1;
  return input.length > 0 && input.every((item) => typeof item === 'number') ? 1 : input.length;
}
