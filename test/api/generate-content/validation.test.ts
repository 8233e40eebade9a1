import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

const LITE = `/v1beta/models/gamma-2.5-flash-lite:generateContent?key=${TEST_KEY}`;
const IMAGE = `/v1beta/models/gamma-3.1-flash-image:streamGenerateContent?key=${TEST_KEY}`;
const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNgYGAAAAAEAAH2FzhVAAAAAElFTkSuQmCC';
const text = (t = 'Hi') => ({ text: t });
const inline = { inline_data: { mime_type: 'image/png', data: PNG_1PX } };
const withConfig = (generationConfig: unknown) => ({ contents: [{ role: 'user', parts: [text()] }], generationConfig });
const withParts = (...parts: unknown[]) => ({ contents: [{ role: 'user', parts }] });
const image = (imageConfig: unknown) => withConfig({ responseModalities: ['IMAGE'], imageConfig });

/** [case, path, body, expected status, field the 400 must name] */
type Case = [string, string, unknown, 200 | 400, string?];

const CASES: Case[] = [
  ['temperature 0', LITE, withConfig({ temperature: 0 }), 200],
  ['temperature 2', LITE, withConfig({ temperature: 2 }), 200],
  ['temperature below 0', LITE, withConfig({ temperature: -0.01 }), 400, 'generationConfig.temperature'],
  ['temperature above 2', LITE, withConfig({ temperature: 2.01 }), 400, 'generationConfig.temperature'],
  ['temperature as a string', LITE, withConfig({ temperature: '1' }), 400, 'generationConfig.temperature'],
  ['topP 0', LITE, withConfig({ topP: 0 }), 200],
  ['topP 1', LITE, withConfig({ topP: 1 }), 200],
  ['topP above 1', LITE, withConfig({ topP: 1.01 }), 400, 'generationConfig.topP'],
  ['topP below 0', LITE, withConfig({ topP: -0.1 }), 400, 'generationConfig.topP'],
  ['snake_case top_p above 1', LITE, { contents: [{ parts: [text()] }], generation_config: { top_p: 1.5 } }, 400, 'generation_config.top_p'],
  ['contents with one turn and no role', LITE, { contents: [{ parts: [text()] }] }, 200],
  ['contents missing', LITE, { generationConfig: {} }, 400, 'contents'],
  ['contents empty', LITE, { contents: [] }, 400, 'contents'],
  ['role system', LITE, { contents: [{ role: 'system', parts: [text()] }] }, 400, 'contents[0].role'],
  ['user and model turns', LITE, { contents: [{ role: 'user', parts: [text()] }, { role: 'model', parts: [text('Hello')] }, { role: 'user', parts: [text('More')] }] }, 200],
  ['parts empty', LITE, { contents: [{ role: 'user', parts: [] }] }, 400, 'contents[0].parts'],
  ['part with no data', LITE, withParts({}), 400, 'contents[0].parts[0]'],
  ['part with text and inline_data', LITE, withParts({ text: 'a', ...inline }), 400, 'contents[0].parts[0]'],
  ['part with an unknown kind of data', LITE, withParts({ videoClip: { uri: 'x' } }), 400, 'contents[0].parts[0]'],
  ['text not a string', LITE, withParts({ text: 5 }), 400, 'contents[0].parts[0].text'],
  ['inline_data without mime_type', LITE, withParts(text(), { inline_data: { data: PNG_1PX } }), 400, 'contents[0].parts[1].inline_data.mime_type'],
  ['inline_data with a bad media type', LITE, withParts(text(), { inline_data: { mime_type: 'png', data: PNG_1PX } }), 400, 'contents[0].parts[1].inline_data.mime_type'],
  ['inline_data that is not base64', LITE, withParts(text(), { inline_data: { mime_type: 'image/png', data: 'not base64!' } }), 400, 'contents[0].parts[1].inline_data.data'],
  ['inlineData camelCase', LITE, withParts(text(), { inlineData: { mimeType: 'image/png', data: PNG_1PX } }), 200],
  ['inlineData with snake inner keys', LITE, withParts(text(), { inlineData: { mime_type: 'image/png', data: PNG_1PX } }), 400, 'contents[0].parts[1].inlineData.mimeType'],
  ['an image alone on the lite model', LITE, withParts(inline), 200],
  ['systemInstruction', LITE, { ...withParts(text()), systemInstruction: { parts: [text('Be brief.')] } }, 200],
  ['systemInstruction without parts', LITE, { ...withParts(text()), systemInstruction: { parts: [] } }, 400, 'systemInstruction.parts'],
  ['systemInstruction part without text', LITE, { ...withParts(text()), systemInstruction: { parts: [{}] } }, 400, 'systemInstruction.parts[0].text'],
  ['fields the spec does not list', LITE, { ...withConfig({ maxOutputTokens: 20, thinkingConfig: { thinkingBudget: 0 } }), safetySettings: [] }, 200],
  ['responseModalities TEXT and IMAGE', IMAGE, withConfig({ responseModalities: ['TEXT', 'IMAGE'] }), 200],
  ['responseModalities AUDIO', IMAGE, withConfig({ responseModalities: ['AUDIO'] }), 400, 'generationConfig.responseModalities[0]'],
  ['aspectRatio 1:1', IMAGE, image({ aspectRatio: '1:1', imageSize: '512' }), 200],
  ['aspectRatio 8:1', IMAGE, image({ aspectRatio: '8:1', imageSize: '512' }), 200],
  ['aspectRatio 9:21', IMAGE, image({ aspectRatio: '9:21', imageSize: '512' }), 200],
  ['aspectRatio 2:1 (not offered)', IMAGE, image({ aspectRatio: '2:1' }), 400, 'generationConfig.imageConfig.aspectRatio'],
  ['aspectRatio 16/9', IMAGE, image({ aspectRatio: '16/9' }), 400, 'generationConfig.imageConfig.aspectRatio'],
  ['imageSize 512', IMAGE, image({ imageSize: '512' }), 200],
  ['imageSize 4K', IMAGE, image({ imageSize: '4K' }), 200],
  ['imageSize 8K', IMAGE, image({ imageSize: '8K' }), 400, 'generationConfig.imageConfig.imageSize'],
  ['imageSize 1k (lower case)', IMAGE, image({ imageSize: '1k' }), 400, 'generationConfig.imageConfig.imageSize'],
  ['snake_case image_config.aspect_ratio 3:1', IMAGE, { contents: [{ parts: [text()] }], generationConfig: { image_config: { aspect_ratio: '3:1' } } }, 400, 'generationConfig.image_config.aspect_ratio'],
  ['reference image with text', IMAGE, withParts(text('Make it blue'), inline), 200],
  ['reference image without text', IMAGE, withParts(inline), 400, 'contents[0].parts'],
  ['model turn replaying an image', IMAGE, { contents: [{ role: 'user', parts: [text('Draw')] }, { role: 'model', parts: [inline] }, { role: 'user', parts: [text('Bluer')] }] }, 200],
];

describe('native endpoint validation: each bound passes, just past it is a 400 INVALID_ARGUMENT', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it.each(CASES)('%s', async (_name, path, body, status, field) => {
    const response = await call(gateway, 'POST', path, body, {});
    expect(response.status, response.text.slice(0, 300)).toBe(status);
    if (status === 400) {
      expect(response.json).toEqual({ error: { code: 400, message: expect.any(String), status: 'INVALID_ARGUMENT' } });
      expect(response.json.error.message).toContain(`'${field}'`);
    }
  });

  it('rejects a body that is not JSON, and an unknown alt value', async () => {
    const broken = await call(gateway, 'POST', LITE, '{"contents": [', {});
    expect(broken.status).toBe(400);
    expect(broken.json.error.status).toBe('INVALID_ARGUMENT');
    const alt = await call(gateway, 'POST', `${LITE}&alt=xml`, withParts(text()), {});
    expect(alt.status).toBe(400);
    expect(alt.json.error.message).toContain("'alt'");
    expect((await call(gateway, 'POST', `${LITE}&alt=sse`, withParts(text()), {})).status).toBe(200);
  });

  it('passes fields the spec does not list on to the upstream unchanged', async () => {
    const body = { ...withConfig({ maxOutputTokens: 20, stopSequences: ['x'] }), safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }] };
    expect((await call(gateway, 'POST', LITE, body, {})).status).toBe(200);
    expect(gateway.deps.simulators.get('simulator-gemini')!.requests.at(-1)!.body).toEqual(body);
  });
});
