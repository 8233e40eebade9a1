// Fake upstream vendors for the event-loop watchdog, in a process of their own: they drain each
// body and answer a minimal documented success for the path (OpenAI chat, Anthropic
// messages, Gemini generateContent with a text or an image part). Prints its port.
import { createServer } from 'node:http';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };

function answer(path) {
  if (path.endsWith('/chat/completions')) {
    return { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage };
  }
  if (path.endsWith('/messages')) {
    return { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
  }
  if (path.includes(':generateContent')) {
    const part = path.includes('image') ? { inlineData: { mimeType: 'image/png', data: PNG } } : { text: 'ok' };
    return { candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 } };
  }
  return undefined;
}

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const body = answer(req.url.split('?')[0]);
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? { error: { message: 'not found' } }));
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
