/**
 * One request line of a batch (issue 46) and what became of it, as the batch runner, the native
 * vendor batch adapters and the output files share them. Bodies are in the protocol of the
 * batch's `endpoint` (OpenAI's: `/v1/chat/completions`, `/v1/embeddings`, `/v1/responses`);
 * a vendor adapter translates them to its own batch protocol and its results back.
 */
export type BatchEndpoint = '/v1/chat/completions' | '/v1/embeddings' | '/v1/responses';

export interface BatchLine {
  customId: string;
  /** 1-based line number in the input file. */
  line: number;
  /** The public model the line names (`body.model`). */
  model: string;
  body: Record<string, unknown>;
}

/** The usage a finished line is billed on (what the sync endpoint reports, in its own names). */
export interface BatchLineUsage {
  inputTokens: number;
  outputTokens: number;
  /** Cached input tokens where the vendor reports them. */
  cachedInputTokens?: number;
}

export type BatchLineOutcome =
  /** The upstream answered: the body in the batch endpoint's protocol, any HTTP status. */
  | { customId: string; response: { statusCode: number; body: unknown }; usage?: BatchLineUsage }
  /** No HTTP answer (cancelled, expired, the gateway could not send it). */
  | { customId: string; error: { code: string; message: string } };
