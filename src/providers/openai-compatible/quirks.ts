import type { OpenAIFinishReason } from '../../protocols/openai-chat/types.js';

/** How one OpenAI-compatible vendor differs from OpenAI; typed, never string-keyed option bags. */
export interface OpenAICompatibleQuirks {
  /** Finish reasons outside OpenAI's enum, mapped to ours (e.g. Zhipu's `sensitive`). */
  readonly extraFinishReasons: Readonly<Record<string, OpenAIFinishReason>>;
  /** Finish reasons that mean the generation failed upstream (e.g. Zhipu's `network_error`). */
  readonly failureFinishReasons: readonly string[];
  /**
   * `stream-options`: usage comes only when asked with stream_options.include_usage (OpenAI, Ark).
   * `always`: the vendor puts usage on its final chunk unasked (Zhipu), so we never send the option.
   */
  readonly streamUsage: 'stream-options' | 'always';
}

export const OPENAI_QUIRKS: OpenAICompatibleQuirks = {
  extraFinishReasons: {},
  failureFinishReasons: [],
  streamUsage: 'stream-options',
};
