import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { thinkingSignature } from '../../src/providers/anthropic/simulator-validate.js';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';

/**
 * Issue 33: a Claude Code conversation that began on a chat channel holds thinking blocks the
 * gateway built from `reasoning_content`, with `signature: ""`. Moved to an Anthropic channel (the
 * fake checks signatures as Anthropic does: "Invalid signature"), they are dropped; blocks Anthropic
 * signed go back untouched.
 */
describe('thinking blocks without a signature are not sent to Anthropic (issue 33)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { channels: [{ name: 'claude', vendor: 'anthropic', models: { 'alpha-sonnet-4-5-20250929': 'claude-sonnet-4-5-20250929' }, max_retries: 0 }] } });
  });
  afterAll(() => gateway.stop());
  const headers = { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' };
  const send = (assistant: unknown[]) =>
    call(gateway, 'POST', '/v1/messages', { model: 'alpha-sonnet-4-5-20250929', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: assistant }, { role: 'user', content: 'go on' }] }, headers);
  const sentAssistant = () => (gateway.deps.simulators.get('claude')!.requests.at(-1)!.body as { messages: Array<{ content: unknown }> }).messages[1]!.content;

  it('drops thinking built from reasoning_content (empty signature), keeps the rest', async () => {
    const answer = await send([{ type: 'thinking', thinking: 'from a chat model', signature: '' }, { type: 'text', text: 'Sure.' }]);
    expect(answer.status).toBe(200);
    expect(sentAssistant()).toEqual([{ type: 'text', text: 'Sure.' }]);
  });

  it('sends Anthropic-signed thinking back exactly', async () => {
    const signed = { type: 'thinking', thinking: 'mine', signature: thinkingSignature('mine') };
    const answer = await send([signed, { type: 'text', text: 'Sure.' }]);
    expect(answer.status).toBe(200);
    expect(sentAssistant()).toEqual([signed, { type: 'text', text: 'Sure.' }]);
  });

  it('a turn of unsigned thinking alone keeps its text', async () => {
    const answer = await send([{ type: 'thinking', thinking: 'only thought', signature: '' }]);
    expect(answer.status).toBe(200);
    expect(sentAssistant()).toEqual([{ type: 'text', text: 'only thought' }]);
  });
});
