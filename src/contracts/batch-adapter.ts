import type { GatewayError } from '../errors.js';
import type { BatchEndpoint } from './batch-line.js';
import type { UpstreamCall } from './upstream-call.js';

/**
 * One line of a native vendor batch (issue 46): the call the vendor's own sync translator made
 * for it (`pairs[family].toUpstream`), so a batch line is translated exactly as the same request
 * sent alone would be. The adapter only wraps it into the vendor's batch format.
 */
export interface UpstreamBatchRequest {
  customId: string;
  call: UpstreamCall;
}

/** What a poll says of the upstream batch. */
export type UpstreamBatchStatus =
  | { state: 'running' }
  | {
      state: 'ended';
      /** Result files to download, each JSONL of result lines (OpenAI's output and error files, Anthropic's results). */
      downloads: readonly UpstreamCall[];
      /** Result lines carried in the poll answer itself (Gemini's inlined responses). */
      inline: readonly unknown[];
      /** The whole batch failed upstream before any line ran (a refused input file), in the vendor's words (redacted by the caller). */
      failure?: string | undefined;
    };

/** One result line in the vendor's own sync protocol: an HTTP answer, or none. */
export type UpstreamBatchResult =
  | { customId: string; status: number; body: unknown }
  | { customId: string; failure: { code: 'cancelled' | 'expired' | 'failed'; message: string } };

/**
 * A vendor's batch API as pure translators (issue 46), in the shape of video-adapter.ts: the
 * gateway performs the calls (src/batches/native-batch.ts), over the channel's upstream client, so
 * credentials, signing and guards apply as they do to sync calls. No I/O, no clock, no secrets.
 */
export interface BatchAdapter {
  /** The batch endpoints this vendor runs natively; lines of other endpoints run in the gateway. */
  readonly endpoints: readonly BatchEndpoint[];
  /** The vendor's discount on batch work (0.5: half price), read by the price book for natively batched lines. */
  readonly discount: number;
  /** The vendor takes one model per batch (OpenAI, Gemini): the caller groups lines by model. */
  readonly oneModelPerBatch: boolean;
  /** Why the vendor's batches cannot carry this custom_id (Anthropic's 64-character limit), or undefined: such a line is refused, never sent. */
  customIdProblem?(customId: string): string | undefined;
  /** A channel that does not set `batch`: whether its server offers batches (by its base URL; undefined: the simulator). */
  nativeByDefault(baseUrl: string | undefined): boolean;
  /** Vendors that take the lines as an uploaded file (OpenAI): the upload; absent where lines go inline. */
  toUploadRequest?(endpoint: BatchEndpoint, requests: readonly UpstreamBatchRequest[]): UpstreamCall;
  fromUploadResponse?(res: unknown): { fileId: string };
  /** `uploaded`: what fromUploadResponse returned, for vendors that upload first. */
  toCreateRequest(endpoint: BatchEndpoint, requests: readonly UpstreamBatchRequest[], uploaded: { fileId: string } | undefined): UpstreamCall;
  /** Throws a GatewayError when no batch was created. */
  fromCreateResponse(res: unknown): { upstreamId: string };
  toPollRequest(upstreamId: string): UpstreamCall;
  /** Throws a GatewayError when the body is not a batch. */
  fromPollResponse(res: unknown, upstreamId: string): UpstreamBatchStatus;
  /** One parsed line of a download or one inline entry; throws a GatewayError on a line of unknown shape. */
  fromResultLine(line: unknown): UpstreamBatchResult;
  toCancelRequest(upstreamId: string): UpstreamCall;
  /** Maps an upstream error status and body of the batch API itself to our error; never echoes upstream bodies raw. */
  fromUpstreamError(status: number, body: unknown): GatewayError;
}
