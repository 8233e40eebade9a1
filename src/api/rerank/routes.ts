import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { dispatchJson } from '../../gateway/dispatch.js';
import { admit } from '../../plugins/rate-limit.js';
import type { RerankRequest, RerankResponse, RerankTranslatorPair } from '../../protocols/rerank/types.js';
import { toFastifyValidator } from '../../validation/compile.js';
import { RerankRequestDoc, validateRerankRequest } from './schemas.js';
import { openaiErrors } from '../embeddings/errors.js';
import { textsFacts } from '../embeddings/facts.js';

declare module '../../contracts/translator.js' {
  interface FamilyPairs {
    rerank: RerankTranslatorPair;
  }
}

/** POST /v1/rerank: the Cohere/Jina shape most retrieval clients send (protocols/embeddings.md §5). */
export async function rerankRoutes(app: FastifyInstance): Promise<void> {
  app.post(
    '/v1/rerank',
    {
      config: { family: 'rerank', errors: openaiErrors },
      schema: {
        summary: 'Rerank documents',
        description: 'Cohere/Jina shape: `query`, `documents` (strings or `{text}`), `top_n`, `return_documents`. Answers `results[]` with `index` and `relevance_score`, highest first.',
        tags: ['rerank'],
        security: [{ bearer: [] }],
        body: RerankRequestDoc,
      },
      validatorCompiler: () => toFastifyValidator((body) => validateRerankRequest(body, app.gateway.catalog)),
    },
    async (request, reply) => rerank(request, reply),
  );
}

async function rerank(request: FastifyRequest, reply: FastifyReply): Promise<RerankResponse> {
  const body = request.body as RerankRequest;
  const texts = body.documents.map((d) => (typeof d === 'string' ? d : d.text));
  // The query is read against every document: their texts are the tokens to reserve; nothing is generated.
  const admitting = admit(request, reply, body.model, { facts: textsFacts([body.query, ...texts]) });
  if (admitting) await admitting;
  const { body: answer } = await dispatchJson({ family: 'rerank', model: body.model, body, request, reply });
  // top_n and return_documents are applied here, the same whatever the upstream did with them.
  const results = answer.results.slice(0, body.top_n ?? answer.results.length);
  if (body.return_documents) for (const result of results) result.document = { text: texts[result.index] ?? '' };
  return { ...answer, results };
}
