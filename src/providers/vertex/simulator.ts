import type { SimulatorSpec } from '../../simulator/server.js';
import { anthropicErrorBody, anthropicSimulator } from '../anthropic/simulator.js';
import { createGeminiSimulator, geminiErrorBody } from '../gemini/simulator.js';
import { VERTEX_ANTHROPIC_VERSION } from './pairs.js';
import { answerVertexPredict } from './simulator-predict.js';

/** `/v1[/projects/{p}/locations/{r}]/publishers/{publisher}/models/{model}:{method}` */
const PUBLISHER_PATH = /^\/v1(?:\/projects\/[^/]+\/locations\/[^/]+)?\/publishers\/(google|anthropic)\/models\/([^/:]+):(\w+)$/;

/**
 * Vertex's publisher paths answered by the Gemini and Anthropic simulators: Google's models as
 * the Gemini API (their embeddings' `:predict` here), Claude's rawPredict as Messages once its
 * `anthropic_version` is checked and the URL's model put back into the body. Either Vertex credential (bearer or API key) is accepted.
 */
export function createVertexSimulator(): SimulatorSpec {
  const gemini = createGeminiSimulator();
  return {
    vendor: 'vertex',
    errorBody: geminiErrorBody,
    async handle(req, res) {
      const match = req.method === 'POST' ? PUBLISHER_PATH.exec(req.path) : null;
      if (!match) return false;
      const [, publisher, model, method] = match as unknown as [string, string, string, string];
      const credential = req.headers.authorization?.replace(/^Bearer\s+/i, '') ?? req.headers['x-goog-api-key'];
      if (!credential) {
        res.json(401, geminiErrorBody(401, 'Request is missing required authentication credential.'));
        return true;
      }
      if (publisher === 'google' && method === 'predict') {
        await answerVertexPredict(res, decodeURIComponent(model), req.body, geminiErrorBody);
        return true;
      }
      if (publisher === 'google') {
        return gemini.handle({ ...req, path: `/v1beta/models/${model}:${method}`, headers: { ...req.headers, 'x-goog-api-key': credential } }, res);
      }
      const body = req.body as Record<string, unknown> | null;
      if (method !== 'rawPredict' && method !== 'streamRawPredict') return false;
      if (body?.anthropic_version !== VERTEX_ANTHROPIC_VERSION || 'model' in body) {
        res.json(400, anthropicErrorBody(400, `anthropic_version: must be ${VERTEX_ANTHROPIC_VERSION}, and the model belongs in the URL`));
        return true;
      }
      const { anthropic_version: _version, ...rest } = body;
      const headers = { ...req.headers, 'x-api-key': credential, 'anthropic-version': '2023-06-01' };
      return anthropicSimulator.handle({ ...req, path: '/v1/messages', headers, body: { ...rest, model: decodeURIComponent(model) } }, res);
    },
  };
}
