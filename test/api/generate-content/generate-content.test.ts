import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GoogleGenAI } from '@google/genai';
import { PNG } from 'pngjs';
import { parseSseText } from '../../../src/sse/parse.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

const IMAGE = '/v1beta/models/gamma-3.1-flash-image:streamGenerateContent';
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

interface Chunk {
  candidates?: Array<{ content: { role: string; parts: Array<{ text?: string; thought?: boolean; inlineData?: { mimeType: string; data: string } }> }; finishReason?: string }>;
  usageMetadata?: Record<string, unknown>;
  modelVersion: string;
  responseId: string;
  createTime: string;
}

async function streamChunks(gateway: TestGateway, query: string, body: unknown): Promise<{ status: number; contentType: string | null; text: string; chunks: Chunk[] }> {
  const response = await fetch(`${gateway.url}${IMAGE}${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  const chunks = (await parseSseText(text)).map((e) => JSON.parse(e.data) as Chunk);
  return { status: response.status, contentType: response.headers.get('content-type'), text, chunks };
}

const imageRequest = (aspectRatio: string, imageSize = '512') => ({
  contents: [{ role: 'user', parts: [{ text: 'A lighthouse at dusk' }] }],
  generationConfig: { responseModalities: ['TEXT', 'IMAGE'], imageConfig: { aspectRatio, imageSize } },
});

describe('native generate-content endpoints (spec §8, §9)', () => {
  let gateway: TestGateway;
  let ai: GoogleGenAI;
  beforeAll(async () => {
    gateway = await startTestGateway();
    ai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gateway.url } });
  });
  afterAll(() => gateway.stop());
  const simulator = () => gateway.deps.simulators.get('simulator-gemini')!;

  it('@google/genai generateContent on gamma-2.5-flash-lite answers a generate-content response (§9)', async () => {
    const response = await ai.models.generateContent({
      model: 'gamma-2.5-flash-lite',
      contents: [{ role: 'user', parts: [{ text: 'Hello from the SDK' }] }],
      config: { systemInstruction: 'Be brief.', temperature: 0.4, topP: 0.9 },
    });
    expect(response.text).toContain('Hello from the SDK');
    expect(response.modelVersion).toBe('gamma-2.5-flash-lite');
    expect(response.candidates?.[0]?.content?.role).toBe('model');
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
    const usage = response.usageMetadata!;
    expect(usage.promptTokenCount).toBeGreaterThan(0);
    expect(usage.totalTokenCount).toBe(usage.promptTokenCount! + usage.candidatesTokenCount!);

    // What went upstream: the Gemini path with the upstream model, our key in the header only.
    const sent = simulator().requests.at(-1)!;
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash-lite:generateContent');
    expect(sent.headers['x-goog-api-key']).toBe('simulator-key');
    expect(sent.query).toEqual({});
    expect(JSON.stringify(sent)).not.toContain(TEST_KEY);
    expect(sent.body).toMatchObject({ systemInstruction: { parts: [{ text: 'Be brief.' }] }, generationConfig: { temperature: 0.4, topP: 0.9 } });
  });

  it('honours maxOutputTokens (MAX_TOKENS) and returns thoughts with includeThoughts', async () => {
    const response = await ai.models.generateContent({
      model: 'gamma-2.5-flash-lite',
      contents: 'Tell me a long story',
      config: { maxOutputTokens: 5, thinkingConfig: { includeThoughts: true } },
    });
    const candidate = response.candidates![0]!;
    expect(candidate.finishReason).toBe('MAX_TOKENS');
    expect(candidate.content!.parts![0]!.thought).toBe(true);
    expect(response.usageMetadata!.candidatesTokenCount).toBe(5);
    expect(response.usageMetadata!.thoughtsTokenCount).toBeGreaterThan(0);
  });

  it('@google/genai generateContentStream on gamma-3.1-flash-image yields thoughts, one image, then usage (§8)', async () => {
    const chunks = [];
    const stream = await ai.models.generateContentStream({
      model: 'gamma-3.1-flash-image',
      contents: [{ role: 'user', parts: [{ text: 'A red kite over the sea' }] }],
      config: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '16:9', imageSize: '512' } },
    });
    for await (const chunk of stream) chunks.push(chunk);
    const kinds = chunks.map((c) => {
      const part = c.candidates?.[0]?.content?.parts?.[0];
      return part?.thought ? 'thought' : part?.inlineData ? 'image' : c.candidates ? 'other' : 'usage';
    });
    expect(kinds.at(-2)).toBe('image');
    expect(kinds.at(-1)).toBe('usage');
    expect(kinds.slice(0, -2).every((k) => k === 'thought')).toBe(true);
    expect(kinds.length).toBeGreaterThan(2);
    const image = chunks.at(-2)!.candidates![0]!.content!.parts![0]!.inlineData!;
    const png = PNG.sync.read(Buffer.from(image.data!, 'base64'));
    expect(png.width / png.height).toBeCloseTo(16 / 9, 1);
    expect(chunks.at(-1)!.usageMetadata!.thoughtsTokenCount).toBeGreaterThan(0);
    expect(chunks.every((c) => c.modelVersion === 'gamma-3.1-flash-image')).toBe(true);
    expect(simulator().requests.at(-1)!.query).toEqual({ alt: 'sse' });
  });

  it('streams SSE in the exact chunk order, with or without alt=sse', async () => {
    for (const query of [`?alt=sse&key=${TEST_KEY}`, `?key=${TEST_KEY}`]) {
      const { status, contentType, text, chunks } = await streamChunks(gateway, query, imageRequest('4:5'));
      expect(status).toBe(200);
      expect(contentType).toMatch(/^text\/event-stream/);
      // Each event is one `data:` line and a blank line; no event names, no [DONE].
      expect(text.split('\n\n').filter(Boolean).every((event) => /^data: \{.*\}$/.test(event))).toBe(true);
      expect(text).not.toContain('[DONE]');

      const usage = chunks.at(-1)!;
      const image = chunks.at(-2)!;
      const thoughts = chunks.slice(0, -2);
      expect(thoughts.length).toBeGreaterThan(0);
      for (const chunk of thoughts) expect(chunk.candidates![0]!.content.parts[0]!.thought).toBe(true);
      expect(image.candidates![0]!.content.parts[0]!.inlineData!.mimeType).toBe('image/png');
      expect(image.usageMetadata).toBeUndefined();
      expect(usage.candidates).toBeUndefined();
      expect(usage.usageMetadata).toMatchObject({
        promptTokenCount: expect.any(Number),
        candidatesTokenCount: 747,
        thoughtsTokenCount: expect.any(Number),
        totalTokenCount: expect.any(Number),
        trafficType: 'ON_DEMAND',
      });
      const ids = new Set(chunks.map((c) => c.responseId));
      expect(ids.size).toBe(1);
      for (const chunk of chunks) {
        expect(chunk.modelVersion).toBe('gamma-3.1-flash-image');
        expect(chunk.responseId).toEqual(expect.any(String));
        expect(chunk.createTime).toMatch(RFC3339);
      }
      const png = PNG.sync.read(Buffer.from(image.candidates![0]!.content.parts[0]!.inlineData!.data, 'base64'));
      expect([png.width, png.height]).toEqual([410, 512]);
    }
  });

  it('draws the image at the requested aspect ratio and size tier', async () => {
    for (const [ratio, size, width, height] of [['1:1', '1K', 1024, 1024], ['21:9', '512', 512, 219], ['1:8', '512', 64, 512]] as const) {
      const { chunks } = await streamChunks(gateway, `?key=${TEST_KEY}`, imageRequest(ratio, size));
      const png = PNG.sync.read(Buffer.from(chunks.at(-2)!.candidates![0]!.content.parts[0]!.inlineData!.data, 'base64'));
      expect([png.width, png.height]).toEqual([width, height]);
    }
  });

  it('accepts a reference image with its text in both inline-data casings', async () => {
    const png = PNG.sync.write(Object.assign(new PNG({ width: 2, height: 2 }), { data: Buffer.alloc(16, 255) })).toString('base64');
    for (const part of [{ inline_data: { mime_type: 'image/png', data: png } }, { inlineData: { mimeType: 'image/png', data: png } }]) {
      const { status, chunks } = await streamChunks(gateway, `?key=${TEST_KEY}`, { contents: [{ role: 'user', parts: [{ text: 'Make it blue' }, part] }] });
      expect(status).toBe(200);
      expect(chunks.at(-1)!.usageMetadata!.promptTokenCount).toBeGreaterThan(258);
      expect(simulator().requests.at(-1)!.body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Make it blue' }, part] }] });
    }
  });
});
