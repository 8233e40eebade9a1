import type { IncomingHttpHeaders } from 'node:http';
import type { TracingConfig } from '../config/schema.js';

/** Span attributes; undefined ones are left out. */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export interface SpanStart {
  name: string;
  attributes: SpanAttributes;
}

export interface SpanEnd {
  /** The span's final name, when more is known at the end (the model). */
  name?: string;
  attributes: SpanAttributes;
  isError: boolean;
}

/**
 * The gateway's traces, built only when tracing is on: the request path's one check is
 * `request.gw.trace`, undefined when off. No OpenTelemetry type leaks past this interface.
 */
export interface Tracing {
  /** The server span of one request: a child of the caller's W3C `traceparent` when it sent one. */
  startRequest(headers: IncomingHttpHeaders, start: SpanStart): RequestTrace;
  /** Sends what is buffered (tests, graceful stop). */
  forceFlush(): Promise<void>;
  /** Sends what is buffered and stops exporting. */
  shutdown(): Promise<void>;
}

export interface RequestTrace {
  /** A client span for one upstream attempt, a child of the request's span. */
  startAttempt(start: SpanStart): AttemptTrace;
  end(end: SpanEnd): void;
}

export interface AttemptTrace {
  /** `traceparent` (and `tracestate`) naming this attempt's span, sent upstream. */
  readonly headers: Readonly<Record<string, string>>;
  end(end: SpanEnd): void;
}

/**
 * The SDK is imported here and only when tracing is on: off, not one module of it is loaded.
 * `onExportError` hears of batches the collector did not take (at most once a minute).
 */
export async function startTracing(config: TracingConfig, onExportError?: (error: Error) => void): Promise<Tracing> {
  const { createOtelTracing } = await import('./otel-tracing.js');
  return createOtelTracing(config, onExportError);
}
