import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { sampleToolArguments, withArgumentHints } from '../../src/simulator/tool-arguments.js';
import { codexFirstRequest } from '../helpers/agent-requests.js';

const ajv = new Ajv2020({ strict: false, validateFormats: false });

/** Codex's own tool schemas, as its first request declares them (the namespace's functions included). */
const codexTools = (): Array<{ name: string; parameters: object }> =>
  (codexFirstRequest('m', 'x').tools as Array<{ type: string; name: string; parameters?: object; tools?: Array<{ name: string; parameters: object }> }>).flatMap((tool) =>
    tool.type === 'namespace' ? tool.tools! : tool.type === 'function' ? [{ name: tool.name, parameters: tool.parameters! }] : [],
  );

/** Arguments an agent accepts (issue 20): Codex type-checks them; Claude Code needs paths and commands. */
describe('sampleToolArguments', () => {
  it("every Codex tool gets arguments valid for its schema, with its required fields and nothing else it didn't ask for", () => {
    for (const tool of codexTools()) {
      for (const salt of ['a', 'b', 'c']) {
        const args = sampleToolArguments(tool.parameters, salt) as Record<string, unknown>;
        expect(ajv.validate(tool.parameters, args), `${tool.name}: ${JSON.stringify(args)}`).toBe(true);
        const required = (tool.parameters as { required?: string[] }).required ?? [];
        expect(Object.keys(args).sort()).toEqual([...required].sort());
      }
    }
  });

  it('exec_command gets a short command', () => {
    const exec = codexTools().find((tool) => tool.name === 'exec_command')!;
    expect(sampleToolArguments(exec.parameters, 'x')).toEqual({ cmd: 'echo hello' });
  });

  it('numbers named like sizes, counts, durations and ids are small non-negative integers (Codex reads them as unsigned)', () => {
    const schema = {
      type: 'object',
      properties: { max_output_tokens: { type: 'number' }, yield_time_ms: { type: 'number' }, session_id: { type: 'number' }, timeoutMs: { type: 'integer' }, maxResults: { type: 'number' } },
      required: ['max_output_tokens', 'yield_time_ms', 'session_id', 'timeoutMs', 'maxResults'],
    };
    for (const salt of ['a', 'b', 'c', 'd', 'e']) {
      for (const value of Object.values(sampleToolArguments(schema, salt) as Record<string, number>)) {
        expect(Number.isInteger(value) && value >= 0 && value <= 100, String(value)).toBe(true);
      }
    }
  });

  it("the schema's own bounds, enums and patterns win over the hints", () => {
    const schema = {
      type: 'object',
      properties: {
        limit: { type: 'integer', minimum: 500, maximum: 600 },
        offset: { type: 'number', exclusiveMinimum: 3, exclusiveMaximum: 6 },
        count: { type: 'number', minimum: -10, maximum: -5 },
        path: { type: 'string', pattern: '^src/' },
        command: { type: 'string', enum: ['ls', 'pwd'] },
        file_path: { type: 'string', maxLength: 4 },
      },
      required: ['limit', 'offset', 'count', 'path', 'command', 'file_path'],
    };
    for (const salt of ['a', 'b', 'c']) {
      const args = sampleToolArguments(schema, salt) as Record<string, unknown>;
      expect(ajv.validate(schema, args), JSON.stringify(args)).toBe(true);
      expect([4, 5]).toContain(args.offset);
      expect(args.file_path).not.toBe('/tmp/example.txt');
    }
  });

  it("Claude Code's shapes: a path for file_path, a command for Bash, argv for a command array", () => {
    const read = { type: 'object', properties: { file_path: { type: 'string', description: 'The absolute path to the file to read' }, offset: { type: 'number' }, limit: { type: 'number' } }, required: ['file_path'], additionalProperties: false };
    expect(sampleToolArguments(read, 'x')).toEqual({ file_path: 'example.txt' });
    expect(sampleToolArguments(read, 'Read the file notes.txt')).toEqual({ file_path: 'notes.txt' });
    expect(sampleToolArguments(read, 'Open /work/src/app.ts, please.')).toEqual({ file_path: '/work/src/app.ts' });
    const bash = { type: 'object', properties: { command: { type: 'string' }, timeout: { type: 'number' } }, required: ['command', 'timeout'] };
    expect(sampleToolArguments(bash, 'x')).toEqual({ command: 'echo hello', timeout: expect.any(Number) });
    const shell = { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } }, required: ['command'] };
    expect(sampleToolArguments(shell, 'x')).toEqual({ command: ['echo', 'hello'] });
  });

  it('a tool whose arguments are all optional gets the one it is obviously for, and no other', () => {
    const lookup = { type: 'object', properties: { query: { type: 'string' }, verbose: { type: 'boolean' } } };
    expect(sampleToolArguments(lookup, 'x')).toEqual({ query: 'example' });
    expect(sampleToolArguments({ type: 'object', properties: { verbose: { type: 'boolean' } } }, 'x')).toEqual({});
  });

  it('hints reach nested objects, array items and definitions', () => {
    const hinted = withArgumentHints({
      type: 'object',
      properties: { job: { type: 'object', properties: { retries: { type: 'number' } } }, steps: { type: 'array', items: { type: 'object', properties: { cmd: { type: 'string' } } } } },
      $defs: { page: { type: 'object', properties: { page: { type: 'number' } } } },
    }) as { properties: { job: { properties: { retries: object } }; steps: { items: { properties: { cmd: object } } } }; $defs: { page: { properties: { page: object } } } };
    expect(hinted.properties.job.properties.retries).toEqual({ type: 'integer', minimum: 0, maximum: 100 });
    expect(hinted.properties.steps.items.properties.cmd).toEqual({ type: 'string', const: 'echo hello' });
    expect(hinted.$defs.page.properties.page).toEqual({ type: 'integer', minimum: 0, maximum: 100 });
  });
});
