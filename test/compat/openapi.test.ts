import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

interface Operation {
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

/** The document a client generator reads: linted with Redocly's recommended rules (issue 16). */
describe('compat: /openapi.json', () => {
  let gateway: TestGateway;
  let source: string;
  beforeAll(async () => {
    gateway = await startTestGateway();
    source = await (await fetch(`${gateway.url}/openapi.json`)).text();
  });
  afterAll(() => gateway.stop());

  it('passes the Redocly recommended ruleset with no errors', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
  });

  it('has request, success and error schemas for every endpoint, in the family envelope', () => {
    const doc = JSON.parse(source) as { paths: Record<string, Record<string, Operation>>; servers: Array<{ url: string }> };
    expect(doc.servers[0]!.url).toBe(gateway.url);
    // Actions that take no body by design (their path names the action); everything else that
    // POSTs or PATCHes must document its JSON body.
    const bodiless = /\/(regenerate|invite|revoke-all|test|cancel)$/;
    const missing: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const name = `${method.toUpperCase()} ${path}`;
        // A file upload documents its multipart form instead (POST /v1/files).
        const bodySchema = operation.requestBody?.content?.['application/json']?.schema ?? operation.requestBody?.content?.['multipart/form-data']?.schema;
        if ((method === 'post' || method === 'patch') && !(method === 'post' && bodiless.test(path)) && !bodySchema) missing.push(`${name}: request`);
        const [successStatus, success] = Object.entries(operation.responses ?? {}).find(([status]) => status.startsWith('2')) ?? [];
        if (successStatus !== '204' && (!success?.content || Object.values(success.content).some((c) => !c.schema))) missing.push(`${name}: success`);
        const errors = Object.entries(operation.responses ?? {}).filter(([status]) => status.startsWith('4'));
        if (errors.length === 0 || errors.some(([, r]) => !r.content?.['application/json']?.schema)) missing.push(`${name}: errors`);
      }
    }
    expect(missing).toEqual([]);
    const errorRef = (path: string, method: string) => JSON.stringify(doc.paths[path]![method]!.responses!['401']!.content!['application/json']!.schema);
    expect(errorRef('/v1/chat/completions', 'post')).toContain('ChatError');
    expect(errorRef('/v1beta/models/gamma-2.5-flash-lite:generateContent', 'post')).toContain('GoogleError');
    expect(errorRef('/v1/responses', 'post')).toContain('GeneralError');
    expect(errorRef('/videoalt/v1/videos/text2video', 'post')).toContain('KlingError');
    expect(doc.paths['/v1/models/{model}']).toBeDefined();
  });
});
