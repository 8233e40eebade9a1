import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import type { ValidateFunction } from 'ajv';
import type { Document, LineCounter } from 'yaml';
import { FileConfigSchema, type ConfigSource, type FileConfig, type GatewayConfig, type TracingConfig } from './schema.js';
import { providerFor } from '../providers/registry.js';
import { DEFAULT_INSTANCE_LEASE_MS } from '../db/instance-registry.js';
import type { VendorId } from '../providers/registry.js';

/** A client has a minute to send its whole request (a 32 MB body at about 0.5 MB/s). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Eight bodies at the default 32 MB limit, or thousands of ordinary ones. */
export const DEFAULT_MAX_BODY_BYTES_IN_FLIGHT = 256 * 1024 * 1024;

/** `true`, a number of proxy hops, or a comma-separated list of proxy addresses and CIDRs. */
function parseTrustProxy(value: string | undefined): boolean | number | string[] | undefined {
  if (!value) return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  if (/^\d+$/.test(value)) return Number(value);
  return value.split(',').map((entry) => entry.trim()).filter(Boolean);
}

const isTrue = (value: string | undefined): boolean => value !== undefined && ['true', '1', 'yes'].includes(value.trim().toLowerCase());

/**
 * The YAML parser and the file's validator exist only where GATEWAY_CONFIG is set: a gateway on
 * the embedded defaults never pays for them (issue 24). Loaded synchronously, as start-up is.
 */
let fileTools: { yaml: typeof import('yaml'); validateFile: ValidateFunction } | undefined;
function loadFileTools(): NonNullable<typeof fileTools> {
  if (fileTools) return fileTools;
  const require = createRequire(import.meta.url);
  const { Ajv } = require('ajv') as typeof import('ajv');
  fileTools = { yaml: require('yaml') as typeof import('yaml'), validateFile: new Ajv({ allErrors: true, strict: false }).compile(FileConfigSchema) };
  return fileTools;
}

/** The only reader of process.env. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const source = env.GATEWAY_CONFIG ? readConfigFile(env.GATEWAY_CONFIG, env) : undefined;
  const file = source?.file ?? {};
  return {
    port: parseInteger(env.PORT, 8080, 'PORT'),
    host: env.HOST ?? '0.0.0.0',
    // GATEWAY_DATA_DIR, else `data` beside the configuration file, else ./data: the server and the
    // CLI find the same store from the same variables (issue 15).
    dataDir: resolve(env.GATEWAY_DATA_DIR || (env.GATEWAY_CONFIG ? join(dirname(resolve(env.GATEWAY_CONFIG)), 'data') : './data')),
    publicUrl: env.GATEWAY_PUBLIC_URL?.replace(/\/$/, ''),
    trustProxy: parseTrustProxy(env.GATEWAY_TRUST_PROXY),
    bootstrapKey: env.GATEWAY_BOOTSTRAP_KEY || undefined,
    adminToken: env.GATEWAY_ADMIN_TOKEN || undefined,
    secretKey: env.GATEWAY_SECRET_KEY || undefined,
    secretKeyPrevious: env.GATEWAY_SECRET_KEY_PREVIOUS || undefined,
    allowUnopenableChannels: isTrue(env.GATEWAY_ALLOW_UNOPENABLE_CHANNELS),
    // The guard's old opt-in switch (issue 34) is still read: `true` keeps the guard on whatever else says.
    allowLinkLocalUpstreams: isTrue(env.GATEWAY_ALLOW_LINK_LOCAL_UPSTREAMS) && !isTrue(env.GATEWAY_DENY_LINK_LOCAL_UPSTREAMS),
    bodyLimitBytes: parseInteger(env.GATEWAY_BODY_LIMIT, 32 * 1024 * 1024, 'GATEWAY_BODY_LIMIT'),
    requestTimeoutMs: parseInteger(env.GATEWAY_REQUEST_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, 'GATEWAY_REQUEST_TIMEOUT_MS'),
    maxBodyBytesInFlight: parseInteger(env.GATEWAY_MAX_BODY_BYTES_IN_FLIGHT, DEFAULT_MAX_BODY_BYTES_IN_FLIGHT, 'GATEWAY_MAX_BODY_BYTES_IN_FLIGHT'),
    ...(env.GATEWAY_MAX_BODY_BYTES_PER_KEY ? { maxBodyBytesPerKey: parseInteger(env.GATEWAY_MAX_BODY_BYTES_PER_KEY, 0, 'GATEWAY_MAX_BODY_BYTES_PER_KEY') } : {}),
    ...(env.GATEWAY_MAX_UPSTREAM_BODY_BYTES ? { maxUpstreamBodyBytes: parseInteger(env.GATEWAY_MAX_UPSTREAM_BODY_BYTES, 0, 'GATEWAY_MAX_UPSTREAM_BODY_BYTES') } : {}),
    ...(env.GATEWAY_MCP_MAX_RESULT_BYTES ? { mcpMaxResultBytes: parseInteger(env.GATEWAY_MCP_MAX_RESULT_BYTES, 0, 'GATEWAY_MCP_MAX_RESULT_BYTES') } : {}),
    ...(env.GATEWAY_FILE_MAX_BYTES ? { fileMaxBytes: parseInteger(env.GATEWAY_FILE_MAX_BYTES, 0, 'GATEWAY_FILE_MAX_BYTES') } : {}),
    ...(env.GATEWAY_BATCH_FILE_MAX_BYTES ? { batchFileMaxBytes: parseInteger(env.GATEWAY_BATCH_FILE_MAX_BYTES, 0, 'GATEWAY_BATCH_FILE_MAX_BYTES') } : {}),
    ...(env.GATEWAY_MCP_SESSIONS_PER_KEY ? { mcpSessionsPerKey: parseInteger(env.GATEWAY_MCP_SESSIONS_PER_KEY, 0, 'GATEWAY_MCP_SESSIONS_PER_KEY') } : {}),
    ...(env.GATEWAY_MCP_SESSION_IDLE_MS ? { mcpSessionIdleMs: parseInteger(env.GATEWAY_MCP_SESSION_IDLE_MS, 0, 'GATEWAY_MCP_SESSION_IDLE_MS') } : {}),
    shutdownTimeoutMs: parseInteger(env.GATEWAY_SHUTDOWN_TIMEOUT_MS, 25_000, 'GATEWAY_SHUTDOWN_TIMEOUT_MS'),
    logLevel: env.LOG_LEVEL ?? 'info',
    workers: Math.max(1, parseInteger(env.GATEWAY_WORKERS, 1, 'GATEWAY_WORKERS')),
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    ...(env.GATEWAY_CACHE_STORE ? { cacheStore: parseCacheStore(env.GATEWAY_CACHE_STORE) } : {}),
    instanceLeaseMs: parseInteger(env.GATEWAY_INSTANCE_LEASE_MS, DEFAULT_INSTANCE_LEASE_MS, 'GATEWAY_INSTANCE_LEASE_MS'),
    corsOrigins: (env.GATEWAY_CORS_ORIGINS ?? '').split(',').map((origin) => origin.trim().replace(/\/$/, '')).filter(Boolean),
    tracing: loadTracingConfig(env),
    file,
    ...(source ? { fileSource: source.source } : {}),
  };
}

/**
 * Traces are off unless an OTLP endpoint is set; OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none
 * turn them off again (the OpenTelemetry SDK's own switches).
 */
export function loadTracingConfig(env: NodeJS.ProcessEnv): TracingConfig | undefined {
  if (!env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT && !env.OTEL_EXPORTER_OTLP_ENDPOINT) return undefined;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' || env.OTEL_TRACES_EXPORTER?.trim() === 'none') return undefined;
  // Spans go out as OTLP/HTTP JSON, which a collector's HTTP port takes whichever HTTP encoding is
  // named; gRPC is another port and protocol, and sending there would fail silently.
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL'] as const) {
    if (env[name]?.trim().toLowerCase() === 'grpc') {
      throw new Error(`${name}=grpc is not supported: the gateway exports OTLP over HTTP; point OTEL_EXPORTER_OTLP_ENDPOINT at the collector's HTTP port (4318) and set ${name}=http/json or leave it unset`);
    }
  }
  return {
    serviceName: env.OTEL_SERVICE_NAME || undefined,
    sampler: parseSampler(env.OTEL_TRACES_SAMPLER, env.OTEL_TRACES_SAMPLER_ARG),
    exportDelayMs: parseInteger(env.OTEL_BSP_SCHEDULE_DELAY, 5_000, 'OTEL_BSP_SCHEDULE_DELAY'),
  };
}

/** The specification's sampler names; parentbased_always_on unless told otherwise. */
function parseSampler(name: string | undefined, arg: string | undefined): TracingConfig['sampler'] {
  const sampler = (name || 'parentbased_always_on').trim().toLowerCase();
  const parentBased = sampler.startsWith('parentbased_');
  switch (parentBased ? sampler.slice('parentbased_'.length) : sampler) {
    case 'always_on':
      return { ratio: 1, parentBased };
    case 'always_off':
      return { ratio: 0, parentBased };
    case 'traceidratio': {
      const ratio = arg === undefined || arg === '' ? 1 : Number(arg);
      if (!(ratio >= 0 && ratio <= 1)) throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got '${arg}'`);
      return { ratio, parentBased };
    }
    default:
      throw new Error(`OTEL_TRACES_SAMPLER '${name}' is not supported: use always_on, always_off, traceidratio or their parentbased_ forms`);
  }
}

function parseCacheStore(value: string): 'database' | 'redis' {
  if (value === 'database' || value === 'redis') return value;
  throw new Error(`GATEWAY_CACHE_STORE must be 'database' or 'redis', got '${value}'`);
}

function parseInteger(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got '${value}'`);
  return n;
}

/** Reads the YAML file, substitutes ${ENV} references and checks it against the schema. */
export function loadConfigFile(path: string, env: NodeJS.ProcessEnv): FileConfig {
  return readConfigFile(path, env).file;
}

/** The file's configuration and where each of its values is, for errors found after loading (catalog checks). */
export function readConfigFile(path: string, env: NodeJS.ProcessEnv): { file: FileConfig; source: ConfigSource } {
  const text = readFileSync(path, 'utf8');
  const { yaml, validateFile } = loadFileTools();
  const lineCounter = new yaml.LineCounter();
  const doc = yaml.parseDocument(text, { lineCounter });
  if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0]!.message}`);
  const lineOf = (segments: ReadonlyArray<string | number>): number | undefined => {
    // The value's line: for `key: value` entries, the key's own.
    const node = (doc.getIn(segments, true) ?? undefined) as { range?: [number, number] } | undefined;
    return node?.range ? lineCounter.linePos(node.range[0]).line : undefined;
  };
  return { file: checkedFile(doc, lineCounter, validateFile, path, env), source: { path, lineOf } };
}

function checkedFile(doc: Document, lineCounter: LineCounter, validateFile: ValidateFunction, path: string, env: NodeJS.ProcessEnv): FileConfig {
  const data = substituteEnv(doc.toJS() ?? {}, env, path);
  if (!validateFile(data)) {
    const error = validateFile.errors![0]!;
    const segments = error.instancePath.split('/').slice(1);
    const node = doc.getIn(segments, true) as { range?: [number, number] } | undefined;
    const line = node?.range ? ` (line ${lineCounter.linePos(node.range[0]).line})` : '';
    const field = segments.join('.') || '(root)';
    throw new Error(`${path}: '${field}'${line} ${error.message ?? 'is invalid'}`);
  }
  const config = data as FileConfig;
  (config.channels ?? []).forEach((channel, index) => {
    const doubled = doubledSegment(channel);
    if (!doubled) return;
    const node = doc.getIn(['channels', index, 'base_url'], true) as { range?: [number, number] } | undefined;
    const line = node?.range ? ` (line ${lineCounter.linePos(node.range[0]).line})` : '';
    throw new Error(`${path}: 'channels.${index}.base_url'${line} ends with '${doubled}', which the gateway adds itself for ${channel.vendor}; leave it out`);
  });
  return config;
}

/** The version segment a channel's base_url repeats (`…/v1` + `/v1/messages`), if any. */
export function doubledSegment(channel: Pick<NonNullable<FileConfig['channels']>[number], 'base_url' | 'vendor'>): string | undefined {
  const base = channel.base_url?.replace(/\/+$/, '');
  if (!base) return undefined;
  return providerFor(channel.vendor as VendorId).addedPathPrefixes.find((prefix) => base.endsWith(prefix));
}

function substituteEnv(value: unknown, env: NodeJS.ProcessEnv, path: string): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Z0-9_]+)\}/g, (_, name: string) => {
      const resolved = env[name];
      if (resolved === undefined) throw new Error(`${path}: environment variable ${name} is not set`);
      return resolved;
    });
  }
  if (Array.isArray(value)) return value.map((v) => substituteEnv(v, env, path));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteEnv(v, env, path)]));
  }
  return value;
}
