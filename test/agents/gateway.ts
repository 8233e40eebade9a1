import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FileConfig } from '../../src/config/schema.js';
import { admin } from '../helpers/admin.js';
import { TEST_KEY } from '../helpers/gateway.js';
import { startGatewayProcess } from '../helpers/instance-process.js';

/**
 * The gateway the agent clients talk to: `dist/cli.js start` as a real process (what `npm start`
 * runs), on SQLite in a scratch directory, with its access log (LOG_LEVEL=info) and its request log
 * (bodies on) read back after each client run to see every request the client made.
 */

export type Setup = 'defaults' | 'cross' | CloudSetup;

/**
 * The clouds (issue 30), each client's model on one cloud per setup, rotating, so across the
 * three every client meets Bedrock, Azure OpenAI and Vertex AI. Their channels have no base_url:
 * the built-in fakes of each cloud answer (Bedrock's event-stream frames, Vertex's publisher
 * paths, Azure's v1 form).
 */
export const CLOUD_SETUPS = ['clouds-a', 'clouds-b', 'clouds-c'] as const;
export type CloudSetup = (typeof CLOUD_SETUPS)[number];
/**
 * The cloud setups run each client's stream and tool loop (issue 30: every client finishes a tool
 * loop on each cloud); the one-shot and follow-up runs, which exercise the gateway and not the
 * cloud, stay on `defaults` and `cross`, so the suite does not grow by a third for them.
 */
export const isCloud = (setup: string): boolean => (CLOUD_SETUPS as readonly string[]).includes(setup);

/** One model id per client protocol; the same ids on both gateways. */
export const MODELS = {
  /** Messages: the Anthropic simulator on the defaults, an OpenAI chat channel across. */
  anthropic: 'alpha-sonnet-4-5-20250929',
  /** Responses and family-B chat: the Ark simulator on the defaults, an Anthropic channel across. */
  openai: 'beta-seed-2.0-code',
  /** Family-A chat (opencode): the OpenAI simulator on the defaults, an Anthropic channel across. */
  chat: 'delta-4.1',
  /** Gemini generateContent: the Gemini simulator on the defaults, an OpenAI chat channel across. */
  gemini: 'gamma-2.5-flash-lite',
} as const;

/** Every request and answer body in the request log, whole, for the assertions and the failure files. */
const REQUEST_LOG = { bodies: true, headers: true, max_body_chars: 1_048_576 };

/**
 * `defaults`: the embedded channels (built-in simulators), nothing configured but the request log.
 * `cross`: each client's model on a channel of another protocol (a configured channel without
 * `base_url` is a simulator of that vendor): Anthropic-style clients on an OpenAI chat channel,
 * OpenAI-style clients on an Anthropic channel, Gemini CLI on an OpenAI chat channel.
 */
/** Claude on Bedrock (InvokeModel for Anthropic-native clients, Converse for the rest), on Vertex (rawPredict), GPT on Azure, Gemini on Vertex. */
const CLOUD_MODELS = {
  bedrock: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  'azure-openai': 'gpt-4.1',
  'vertex-claude': 'claude-sonnet-4-5@20250929',
  'vertex-gemini': 'gemini-2.5-flash',
} as const;
type CloudModel = keyof typeof CLOUD_MODELS;

/** Which cloud serves each client's model, per setup. */
const CLOUD_ROTATION: Record<CloudSetup, Record<keyof typeof MODELS, CloudModel>> = {
  'clouds-a': { anthropic: 'bedrock', openai: 'azure-openai', gemini: 'vertex-gemini', chat: 'vertex-claude' },
  'clouds-b': { anthropic: 'vertex-claude', openai: 'bedrock', gemini: 'azure-openai', chat: 'bedrock' },
  'clouds-c': { anthropic: 'azure-openai', openai: 'vertex-gemini', gemini: 'bedrock', chat: 'azure-openai' },
};

/** The channel a cloud setup routes a client's model to (the access log's `channel`). */
export const cloudChannel = (setup: CloudSetup, model: keyof typeof MODELS): string => `cloud-${CLOUD_ROTATION[setup][model].replace(/-(claude|gemini)$/, '')}`;

function cloudConfig(setup: CloudSetup): FileConfig {
  const channels = new Map<string, { name: string; vendor: 'bedrock' | 'azure-openai' | 'vertex'; models: Record<string, string> }>();
  for (const [client, cloud] of Object.entries(CLOUD_ROTATION[setup]) as Array<[keyof typeof MODELS, CloudModel]>) {
    const name = cloudChannel(setup, client);
    const channel = channels.get(name) ?? { name, vendor: name.replace(/^cloud-/, '') as 'bedrock' | 'azure-openai' | 'vertex', models: {} };
    channel.models[MODELS[client]] = CLOUD_MODELS[cloud];
    channels.set(name, channel);
  }
  // The simulators' key stands in for each cloud's credentials (a Bedrock API key, an Azure api-key, a Vertex express key).
  // Vertex with a project: the project-scoped publisher paths Claude needs, not express mode.
  const cloudFields = (vendor: string) => (vendor === 'vertex' ? { project: 'agents-suite', region: 'global' } : vendor === 'bedrock' ? { region: 'us-east-1' } : {});
  return { request_log: REQUEST_LOG, channels: [...channels.values()].map((channel) => ({ ...channel, ...cloudFields(channel.vendor), api_key: 'cloud-simulator-key' })) };
}

const CONFIGS: Record<Setup, FileConfig> = {
  defaults: { request_log: REQUEST_LOG },
  cross: {
    request_log: REQUEST_LOG,
    channels: [
      { name: 'openai-chat-for-alpha-and-gamma', vendor: 'openai', models: { [MODELS.anthropic]: 'gpt-4.1', [MODELS.gemini]: 'gpt-4.1' } },
      { name: 'anthropic-for-beta-and-delta', vendor: 'anthropic', models: { [MODELS.openai]: 'claude-sonnet-4-5', [MODELS.chat]: 'claude-sonnet-4-5' } },
    ],
  },
  'clouds-a': cloudConfig('clouds-a'),
  'clouds-b': cloudConfig('clouds-b'),
  'clouds-c': cloudConfig('clouds-c'),
};

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Where a failing run leaves every request and answer of that run (ignored by git). */
const FAILURES_DIR = join(ROOT, 'test-artifacts', 'agents');

/** One access-log line (`msg: "request"`). */
interface AccessLine {
  reqId: string;
  method: string;
  url: string;
  status: number;
  family?: string;
  model?: string;
  channel?: string;
}

/** A model call of a run: its access line and, from the request log, what was sent and answered. */
export interface ModelCall {
  line: AccessLine;
  outcome: string;
  /** Answered from the gateway's response cache. */
  cacheHit: boolean;
  error: string | null;
  requestBody: string;
  responseBody: string;
  /** Whether the answer was an event stream. */
  streamed: boolean;
}

export interface AgentGateway {
  /** `defaults`, `cross`, or the name of a suite's own configuration. */
  setup: string;
  url: string;
  key: string;
  /** Marks the start of a client run: `expectCleanRun(mark)` looks at what came after. */
  mark(): number;
  /**
   * Every request since `mark` must have succeeded (no 4xx/5xx, no stream cut by an error); on a
   * failure the message lists each failed request with the gateway's error, and the whole run
   * (request and answer bodies) is written to test-artifacts/agents/<label>.json.
   * Returns the run's model calls, oldest first.
   */
  expectCleanRun(mark: number, label: string): Promise<ModelCall[]>;
  stop(): Promise<void>;
}

/**
 * A gateway of one of the shared setups, with `more` added to its configuration (the MCP servers of
 * test/agents/claude-code-mcp.test.ts), or of a suite's own configuration named `setup` (the request log added).
 */
export async function startAgentGateway(setup: string, more: Partial<FileConfig> = {}): Promise<AgentGateway> {
  const dataDir = mkdtempSync(join(tmpdir(), `agents-gateway-${setup}-`));
  const base: FileConfig = Object.hasOwn(CONFIGS, setup) ? CONFIGS[setup as Setup] : { request_log: REQUEST_LOG };
  const instance = await startGatewayProcess({ name: `agents-${setup}`, dataDir, databaseUrl: '', file: { ...base, ...more }, built: true, logLevel: 'info' });
  const accessLines = (): AccessLine[] =>
    instance.stdout
      .split('\n')
      .filter((line) => line.includes('"msg":"request"'))
      .map((line) => JSON.parse(line) as AccessLine)
      // The suite's own reads of the request log are not the client's traffic.
      .filter((line) => !line.url.startsWith('/admin/'));

  return {
    setup,
    url: instance.url,
    key: TEST_KEY,
    mark: () => accessLines().length,
    async expectCleanRun(mark, label) {
      const lines = await settledLinesSince(accessLines, mark);
      const calls = await Promise.all(lines.filter(isModelCall).map((line) => modelCall(instance.url, line)));
      const failures = [
        ...lines.filter((line) => line.status >= 400 && !isModelCall(line)).map((line) => `${line.method} ${line.url} → ${line.status}`),
        ...calls.filter((call) => call.line.status >= 400 || call.outcome !== 'success').map(describeFailure),
      ];
      if (failures.length > 0) {
        mkdirSync(FAILURES_DIR, { recursive: true });
        const file = join(FAILURES_DIR, `${label.replace(/[^\w.-]+/g, '_')}.json`);
        writeFileSync(file, JSON.stringify({ gateway: setup, requests: lines, calls }, null, 2));
        throw new Error(`${label}: ${failures.length} of ${lines.length} requests failed on the gateway (${setup}); bodies in ${file}\n${summarise(failures)}`);
      }
      return calls;
    },
    async stop() {
      await instance.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Model calls are the requests of an endpoint family, token counting aside. */
const isModelCall = (line: AccessLine): boolean => line.family !== undefined && !/count_?tokens|countTokens/i.test(line.url);

/** The lines after `mark`, once no new line came for half a second (a stream's line comes at its end). */
async function settledLinesSince(read: () => AccessLine[], mark: number): Promise<AccessLine[]> {
  let count = read().length;
  for (let i = 0; i < 20; i++) {
    await sleep(500);
    const now = read().length;
    if (now === count) break;
    count = now;
  }
  return read().slice(mark);
}

/** The request-log entry of one request; the log is written in batches (about every second). */
async function modelCall(url: string, line: AccessLine): Promise<ModelCall> {
  for (let attempt = 0; attempt < 40; attempt++) {
    const entry = (await admin({ url }, 'GET', `/requests?request_id=${encodeURIComponent(line.reqId)}`)).json?.data?.[0];
    if (entry) {
      const detail = (await admin({ url }, 'GET', `/requests/${entry.id}`)).json;
      const responseBody: string = detail.response_body ?? '';
      return {
        line,
        outcome: entry.outcome,
        cacheHit: entry.cache_hit === true,
        error: entry.error_message ? `${entry.error_code ?? ''}: ${entry.error_message}` : null,
        requestBody: detail.request_body ?? '',
        responseBody,
        streamed: /^(event|data):/m.test(responseBody.slice(0, 200)),
      };
    }
    await sleep(250);
  }
  throw new Error(`request ${line.reqId} (${line.method} ${line.url} → ${line.status}) never reached the request log`);
}

function describeFailure(call: ModelCall): string {
  const cut = call.outcome !== 'success' && call.line.status < 400 ? ` (${call.outcome})` : '';
  return `${call.line.method} ${call.line.url} [${call.line.model ?? 'no model'}${call.line.channel ? ` via ${call.line.channel}` : ''}] → ${call.line.status}${cut} ${call.error ?? ''}`.trim();
}

/** Repeated failures (a client's retries) once, with their count. */
function summarise(failures: string[]): string {
  const counts = new Map<string, number>();
  for (const failure of failures) counts.set(failure, (counts.get(failure) ?? 0) + 1);
  return [...counts].map(([failure, n]) => `  ${n > 1 ? `${n}× ` : ''}${failure}`).join('\n');
}

/** Whether a request body hands tool results back to the model, in any of the four protocols. */
export function carriesToolResult(requestBody: string): boolean {
  return /"type":\s*"(tool_result|function_call_output)"|"role":\s*"tool"|"functionResponse"/.test(requestBody);
}

/** Whether an answer (whole or streamed) asks for a tool call, in any of the four protocols. */
export function asksForTool(responseBody: string): boolean {
  return /"type":\s*"(tool_use|function_call)"|"tool_calls"|"functionCall"/.test(responseBody);
}

/** For assertion messages: the run's model calls, each with whether it carried a tool result or asked for a tool. */
export function describeCalls(calls: ModelCall[]): string {
  const each = calls.map(
    (call, i) =>
      `#${i + 1} ${call.line.method} ${call.line.url}${carriesToolResult(call.requestBody) ? ', carried a tool result' : ''}${asksForTool(call.responseBody) ? ', answered with a tool call' : ''}`,
  );
  return `${calls.length} model call(s): ${each.join('; ')}`;
}

/** A tool loop: the model asked for a tool, and a later call carried its result back. */
export function expectToolLoop(calls: ModelCall[]): void {
  const asked = calls.findIndex((call) => asksForTool(call.responseBody));
  if (calls.length < 2 || asked === -1 || !calls.slice(asked + 1).some((call) => carriesToolResult(call.requestBody))) {
    throw new Error(`expected a tool loop (a tool call, then a call carrying its result), got ${describeCalls(calls)}`);
  }
}

/**
 * Runs a client call and keeps its error for later: the gateway's account of the run (which request
 * failed, with what) says more than the client's exception, so tests check it first, then `value()`
 * returns the result or throws what the client threw.
 */
export async function settle<T>(work: () => Promise<T>): Promise<{ value: () => T }> {
  try {
    const result = await work();
    return { value: () => result };
  } catch (error) {
    return {
      value: () => {
        throw error;
      },
    };
  }
}

/** On a cloud setup, every model call of the run went to the cloud channel that setup gives the client's model. */
export function expectServedBy(calls: ModelCall[], setup: Setup, model: keyof typeof MODELS): void {
  if (!(CLOUD_SETUPS as readonly string[]).includes(setup)) return;
  const channel = cloudChannel(setup as CloudSetup, model);
  const elsewhere = calls.filter((call) => call.line.channel !== channel);
  if (elsewhere.length > 0) throw new Error(`expected every call on ${channel}, got ${elsewhere.map((call) => call.line.channel ?? 'no channel').join(', ')}`);
}
