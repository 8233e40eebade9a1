import { sampleJsonSchema } from './json-schema-sample.js';

/**
 * Tool-call arguments a real agent accepts. A schema alone allows values no model would send and
 * clients refuse: Codex types `max_output_tokens` and `yield_time_ms` (JSON `number`) as unsigned
 * integers, Claude Code's Read wants a file path, a shell tool a command. So before sampling, the
 * schema is narrowed the way a model reads it: only required properties get values; numbers named
 * like sizes, counts, limits and durations are small non-negative integers; strings named like a
 * command, a path, a URL or a search pattern get a plausible value. The sample still satisfies the
 * client's schema (json-schema-sample.ts checks it), only from the sensible part of it.
 */
export function sampleToolArguments(schema: unknown, prompt: string): unknown {
  return sampleJsonSchema(withArgumentHints(schema ?? { type: 'object', properties: {} }, 0, { path: pathIn(prompt) }), prompt, { properties: 'required' }).value;
}

/**
 * The file a prompt names ("Read the file notes.txt"), as a model would pass it on; else a file in
 * the working directory. Relative on purpose: agents allow their working directory and ask before
 * touching others (opencode auto-rejects /tmp in a headless run and ends it).
 */
function pathIn(prompt: string): string {
  return /(?:^|[\s"'`(])((?:\.{0,2}\/)?[\w./-]*[\w-]\.[A-Za-z0-9]{1,8})(?=$|[\s"'`),.;:!?])/.exec(prompt)?.[1] ?? 'example.txt';
}

/** Values that depend on the prompt. */
interface PromptHints {
  path: string;
}

/** Words of numeric names (snake_case, camelCase or kebab-case) for quantities and ids: never negative, never fractional. */
const COUNT_WORDS = /^(id|count|counts|limit|limits|size|max|min|timeout|timeouts|tokens|ms|millis|milliseconds|seconds|secs|sec|minutes|offset|index|length|lines|line|depth|width|height|port|page|pages|retries|attempts|num|number|n|top|k|bytes|chars|characters|results|items|duration|delay|interval|wait)$/;
const SMALL_MAXIMUM = 100;

/** Stands for the file the prompt names (PromptHints.path). */
const PATH = '\u0000path';

/** String values for names an agent's tools use, tried in order; the first whose pattern matches the name wins. */
const STRING_HINTS: Array<[RegExp, string]> = [
  [/^(cmd|command|shell_?command|script)$/i, 'echo hello'],
  [/(^|_)(file_?path|path|filename|file_?name|file)$/i, PATH],
  [/^(cwd|workdir|working_?dir(ectory)?|dir(ectory)?)$/i, '.'],
  [/^(url|uri|link|href)$/i, 'https://example.com/'],
  [/^(pattern|glob|regex)$/i, 'README'],
  [/^(query|q|search|search_?query)$/i, 'example'],
];

const nameWords = (name: string): string[] =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .map((word) => word.toLowerCase())
    .filter(Boolean);

const isCountName = (name: string): boolean => nameWords(name).some((word) => COUNT_WORDS.test(word));

type Schema = Record<string, unknown>;
const isSchema = (value: unknown): value is Schema => !!value && typeof value === 'object' && !Array.isArray(value);
const typesOf = (schema: Schema): string[] => (Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : []);
const isFree = (schema: Schema): boolean => schema.enum === undefined && schema.const === undefined && schema.pattern === undefined && schema.format === undefined;

/** A count-like number: an integer within [max(minimum, 0), min(maximum, 100)] unless the schema says otherwise. */
function countSchema(schema: Schema): Schema {
  let minimum = typeof schema.minimum === 'number' ? Math.max(Math.ceil(schema.minimum), 0) : 0;
  if (typeof schema.exclusiveMinimum === 'number') minimum = Math.max(minimum, Math.floor(schema.exclusiveMinimum) + 1);
  let maximum = typeof schema.maximum === 'number' ? Math.floor(schema.maximum) : Math.max(minimum, SMALL_MAXIMUM);
  if (typeof schema.exclusiveMaximum === 'number') maximum = Math.min(maximum, Math.ceil(schema.exclusiveMaximum) - 1);
  if (maximum < minimum) return schema; // the schema's own bounds leave no non-negative integer: left as it is
  const { type: _type, exclusiveMinimum: _low, exclusiveMaximum: _high, ...rest } = schema;
  return { ...rest, type: 'integer', minimum, maximum };
}

function hintedString(name: string, schema: Schema, hints: PromptHints): Schema {
  const found = STRING_HINTS.find(([pattern]) => pattern.test(name))?.[1];
  const hint = found === PATH ? hints.path : found;
  if (hint === undefined || !isFree(schema)) return schema;
  const fits = (typeof schema.minLength !== 'number' || hint.length >= schema.minLength) && (typeof schema.maxLength !== 'number' || hint.length <= schema.maxLength);
  return fits ? { ...schema, const: hint } : schema;
}

/** `command: string[]` (Codex's older shell tool): the command as argv. */
function hintedArgv(name: string, schema: Schema): Schema {
  const items = isSchema(schema.items) ? schema.items : undefined;
  if (!/^(cmd|command|argv|args)$/i.test(name) || !items || !typesOf(items).includes('string') || !isFree(schema)) return schema;
  const argv = ['echo', 'hello'];
  const fits = (typeof schema.minItems !== 'number' || schema.minItems <= argv.length) && (typeof schema.maxItems !== 'number' || schema.maxItems >= argv.length);
  return fits ? { ...schema, const: argv } : schema;
}

function hintedProperty(name: string, schema: Schema, depth: number, hints: PromptHints): Schema {
  const types = typesOf(schema);
  if ((types.includes('number') || types.includes('integer')) && isFree(schema) && isCountName(name)) return countSchema(schema);
  if (types.length === 1 && types[0] === 'string') return hintedString(name, schema, hints);
  const inner = withArgumentHints(schema, depth + 1, hints) as Schema;
  return types.length === 1 && types[0] === 'array' ? hintedArgv(name, inner) : inner;
}

/** The schema with its named properties narrowed (recursively through objects, arrays and definitions). */
export function withArgumentHints(schema: unknown, depth = 0, hints: PromptHints = { path: 'example.txt' }): unknown {
  if (!isSchema(schema) || depth > 16) return schema;
  const out: Schema = { ...schema };
  if (isSchema(schema.properties)) {
    const properties = Object.entries(schema.properties).map(([name, value]): [string, unknown] => [name, isSchema(value) ? hintedProperty(name, value, depth, hints) : value]);
    out.properties = Object.fromEntries(properties);
    // A tool whose arguments are all optional still gets the one it is obviously for (`lookup({query})`).
    const hasRequired = Array.isArray(schema.required) && schema.required.length > 0;
    const original = schema.properties;
    const obvious = properties.filter(([name, value]) => isSchema(value) && value.const !== undefined && isSchema(original[name]) && original[name].const === undefined).map(([name]) => name);
    if (!hasRequired && obvious.length > 0) out.required = obvious;
  }
  if (isSchema(schema.items)) out.items = withArgumentHints(schema.items, depth + 1, hints);
  for (const key of ['$defs', 'definitions']) {
    const defs = schema[key];
    if (isSchema(defs)) out[key] = Object.fromEntries(Object.entries(defs).map(([name, value]) => [name, withArgumentHints(value, depth + 1, hints)]));
  }
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const branches = schema[key];
    if (Array.isArray(branches)) out[key] = branches.map((branch) => withArgumentHints(branch, depth + 1, hints));
  }
  return out;
}
