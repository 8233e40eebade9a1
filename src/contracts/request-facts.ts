/**
 * What limits, budgets, sticky routing, billing and tracing know of a request (issue 28): each
 * endpoint family turns its own wire body into these once (`api/<family>/facts.ts`), and the
 * generic code reads only them, never a body's protocol fields.
 */
export interface RequestFacts {
  /** The most output tokens the client asked for (`max_tokens` and its kin); undefined when it named none. */
  maxOutputTokens: number | undefined;
  /** How many answers (choices, candidates, images) one call makes: 1 unless the client asked for more. */
  choices: number;
  /** 'off' when the client turned reasoning off, a number when it capped it, undefined to leave the model's ceiling. */
  reasoningBudget: number | 'off' | undefined;
  /**
   * The prompt's tokens, each of its text strings counted with `count`. A function, not a string:
   * most requests have no token limit and no budget, and should not pay for walking their prompt.
   */
  promptTokens(count: (text: string) => number): number;
  /** What a chat template adds around the prompt: per turn, the reply's opening, rendered tool and schema definitions. */
  templateTokens(): number;
  conversation: ConversationHint;
  media: MediaFacts;
  /** Sampling parameters, for the request's span only. */
  temperature: number | undefined;
  topP: number | undefined;
  isStream: boolean;
}

/** What names a request's conversation for sticky routing (gateway/sticky-route.ts), beside the session headers. */
export interface ConversationHint {
  /** A prompt-cache key the client names. */
  cacheKey: string | undefined;
  /** The end user the client names (Claude Code's carries its session). */
  userId: string | undefined;
  /**
   * Strings of the system text (cut after `chars` characters) and then of the first user turn (cut
   * after `chars` more): a shared system prompt alone must not make every request one conversation.
   */
  promptStart(chars: number): string[];
  /**
   * Whether the request continues a conversation: an assistant turn or a tool result among its
   * turns (or a stored response it follows). Only such requests are kept on one channel without a
   * name; a first turn spreads by weight (issue 33).
   */
  hasHistory(): boolean;
}

/** The size of the media a request asks for, which prices by size or resolution read (issue 21). */
export interface MediaFacts {
  imageSize: string | undefined;
  imageQuality: string | undefined;
  videoResolution: string | undefined;
}

export const NO_MEDIA: MediaFacts = Object.freeze({ imageSize: undefined, imageQuality: undefined, videoResolution: undefined });
