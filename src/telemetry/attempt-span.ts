import type { Usage } from '../contracts/usage.js';
import { usageAttributes } from './gen-ai-attributes.js';
import type { SpanEnd, SpanStart } from './tracing.js';

/** What a span says of the channel it calls (a gateway Channel has these). */
export interface SpanChannel {
  readonly name: string;
  readonly vendor: string;
  readonly baseUrl: string;
  readonly provider: { readonly genAiProviderName?: string | undefined };
}

export interface AttemptSpanOptions {
  channel: SpanChannel;
  /** `gen_ai.operation.name` as the route declares it (`config.operation`); the span is named by the method without one. */
  operation: string | undefined;
  /** The channel's name for the model (what the vendor is asked for). */
  upstreamModel: string;
  /** 1 for the first call to this channel, 2 for its first retry, … */
  attempt: number;
  method: string;
}

/** The client span of one upstream attempt, named `{operation} {upstream model}` as the GenAI conventions ask. */
export function attemptSpanStart({ channel, operation, upstreamModel, attempt, method }: AttemptSpanOptions): SpanStart {
  const server = new URL(channel.baseUrl);
  return {
    name: operation ? `${operation} ${upstreamModel}` : method,
    attributes: {
      'gen_ai.operation.name': operation,
      'gen_ai.provider.name': channel.provider.genAiProviderName ?? channel.vendor,
      'gen_ai.request.model': upstreamModel,
      'http.request.method': method,
      'server.address': server.hostname.replace(/^\[|\]$/g, ''),
      'server.port': server.port ? Number(server.port) : server.protocol === 'https:' ? 443 : 80,
      'gateway.channel': channel.name,
      'gateway.attempt': attempt,
    },
  };
}

export interface AttemptOutcome {
  /** The upstream's HTTP status, when it answered. */
  status: number | undefined;
  /** Why the attempt failed: a gateway error code or the upstream's status. */
  errorType?: string;
  usage?: Usage;
}

export function attemptSpanEnd({ status, errorType, usage }: AttemptOutcome): SpanEnd {
  return {
    attributes: { 'http.response.status_code': status, 'error.type': errorType, ...usageAttributes(usage) },
    isError: errorType !== undefined,
  };
}
