/** One parsed server-sent event. `data` is the raw text; translators decide whether to JSON-parse it. */
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

/** An event to send: `data` is an object (serialised here) or text sent as is (e.g. `[DONE]`). */
export interface OutEvent {
  event?: string;
  data: unknown;
}
