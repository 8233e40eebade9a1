import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../src/errors.js';
import { CATALOGUE_CODE_OF, MCP_ERROR } from '../../src/gateway/mcp/json-rpc-errors.js';

/** Issue 43: one table of the MCP gateway's JSON-RPC codes, held together with docs/mcp.md and the GW_* catalogue. */
describe('the MCP JSON-RPC error table', () => {
  const docs = readFileSync(new URL('../../docs/mcp.md', import.meta.url), 'utf8');

  it('docs/mcp.md names every code the gateway answers with', () => {
    for (const [name, code] of Object.entries(MCP_ERROR)) expect(docs, `${name} (${code})`).toContain(`\`${code}\``);
  });

  it('each gateway code logs a code of the catalogue, and docs name it', () => {
    for (const gw of Object.values(CATALOGUE_CODE_OF)) {
      expect(ERRORS[gw]).toBeDefined();
      expect(docs).toContain(`\`${ERRORS[gw].publicCode}\``);
    }
    expect(docs).toContain(`\`${ERRORS.GW_UPSTREAM_ERROR.publicCode}\``);
  });
});
