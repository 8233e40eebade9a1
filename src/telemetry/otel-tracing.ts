import { defaultTextMapGetter, defaultTextMapSetter, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, resourceAttributesEnvDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider, type Sampler, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { TracingConfig } from '../config/schema.js';
import type { AttemptTrace, RequestTrace, SpanAttributes, SpanEnd, SpanStart, Tracing } from './tracing.js';

/**
 * The OpenTelemetry SDK behind `Tracing`: OTLP/HTTP (JSON) through a batch processor. No global
 * provider, context manager or propagator is registered: spans are parented explicitly, so
 * nothing else in the process is traced by accident.
 */
export function createOtelTracing(config: TracingConfig, onExportError?: (error: Error) => void): Tracing {
  // The specification's precedence: OTEL_SERVICE_NAME, then OTEL_RESOURCE_ATTRIBUTES, then our default.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'model-gateway' }))
    .merge(detectResources({ detectors: [resourceAttributesEnvDetector] }))
    .merge(config.serviceName ? resourceFromAttributes({ 'service.name': config.serviceName }) : null);
  // The exporter reads OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _HEADERS, _TIMEOUT and the rest itself.
  const exporter = onExportError ? reportingFailures(new OTLPTraceExporter(), onExportError) : new OTLPTraceExporter();
  const processor = new BatchSpanProcessor({ exporter, scheduledDelayMillis: config.exportDelayMs });
  const provider = new TracerProvider({ resource, sampler: samplerFor(config.sampler), spanProcessors: [processor] });
  const tracer = provider.getTracer('model-gateway');
  const propagator = new W3CTraceContextPropagator();
  return {
    startRequest(headers, start) {
      const parent = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
      const span = tracer.startSpan(start.name, { kind: SpanKind.SERVER, attributes: defined(start.attributes) }, parent);
      return new OtelRequestTrace(tracer, propagator, span, trace.setSpan(parent, span));
    },
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/** A collector that is down or misaddressed would otherwise lose every span without a word. */
const REPORT_EVERY_MS = 60_000;

function reportingFailures(exporter: SpanExporter, report: (error: Error) => void): SpanExporter {
  let reportedAt = -Infinity;
  return {
    export(spans, done) {
      exporter.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS && Date.now() - reportedAt >= REPORT_EVERY_MS) {
          reportedAt = Date.now();
          report(result.error ?? new Error('the collector did not accept the spans'));
        }
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

function samplerFor({ ratio, parentBased }: TracingConfig['sampler']): Sampler {
  const root = ratio >= 1 ? new AlwaysOnSampler() : ratio <= 0 ? new AlwaysOffSampler() : new TraceIdRatioBasedSampler(ratio);
  return parentBased ? new ParentBasedSampler({ root }) : root;
}

class OtelRequestTrace implements RequestTrace {
  constructor(
    private readonly tracer: Tracer,
    private readonly propagator: W3CTraceContextPropagator,
    private readonly span: Span,
    private readonly context: Context,
  ) {}

  startAttempt(start: SpanStart): AttemptTrace {
    const span = this.tracer.startSpan(start.name, { kind: SpanKind.CLIENT, attributes: defined(start.attributes) }, this.context);
    const headers: Record<string, string> = {};
    this.propagator.inject(trace.setSpan(this.context, span), headers, defaultTextMapSetter);
    return { headers, end: (end) => endSpan(span, end) };
  }

  end(end: SpanEnd): void {
    endSpan(this.span, end);
  }
}

function endSpan(span: Span, end: SpanEnd): void {
  if (end.name) span.updateName(end.name);
  span.setAttributes(defined(end.attributes));
  if (end.isError) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** The SDK warns about undefined attribute values; they are simply left out. */
function defined(attributes: SpanAttributes): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}
