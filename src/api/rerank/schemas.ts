import { Type } from 'typebox';
import type { Catalog } from '../../catalog/catalog.js';
import { GatewayError } from '../../errors.js';
import type { RerankRequest } from '../../protocols/rerank/types.js';

/** Cohere advises at most 1,000 documents a search (embeddings.md §5). */
export const MAX_DOCUMENTS = 1000;

const Document = Type.Union([Type.String({ minLength: 1 }), Type.Object({ text: Type.String({ minLength: 1 }) })]);

/** The request as documented (the OpenAPI page); validation is validateRerankRequest's. */
export const RerankRequestDoc = Type.Object(
  {
    model: Type.String(),
    query: Type.String({ minLength: 1 }),
    documents: Type.Array(Document, { minItems: 1, maxItems: MAX_DOCUMENTS }),
    top_n: Type.Optional(Type.Integer({ minimum: 1 })),
    return_documents: Type.Optional(Type.Boolean()),
  },
  { title: 'RerankRequest' },
);

const invalid = (param: string, message: string) => new GatewayError('GW_REQ_INVALID_PARAM', message, { param });

/** Cohere/Jina's request: a rerank model, a query, 1..1,000 documents (strings or `{text}`), top_n ≥ 1. */
export function validateRerankRequest(value: unknown, catalog: Catalog): RerankRequest {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalid('body', 'The request body must be a JSON object');
  const body = value as RerankRequest;
  if (typeof body.model !== 'string' || body.model === '') throw invalid('model', "'model' is required");
  if (!catalog.servesModel('rerank', body.model)) {
    const known = catalog.modelsFor('rerank').join(', ');
    throw invalid('model', catalog.isServed(body.model) ? `'${body.model}' is not a rerank model; use one of: ${known}` : `'model' must be one of: ${known}`);
  }
  if (typeof body.query !== 'string' || body.query === '') throw invalid('query', "'query' must be a non-empty string");
  if (!Array.isArray(body.documents) || body.documents.length === 0) throw invalid('documents', "'documents' must be a non-empty array");
  if (body.documents.length > MAX_DOCUMENTS) throw invalid('documents', `'documents' may have at most ${MAX_DOCUMENTS} items`);
  body.documents.forEach((document, i) => {
    const text = typeof document === 'string' ? document : (document as { text?: unknown } | null)?.text;
    if (typeof text !== 'string' || text === '') throw invalid(`documents[${i}]`, `'documents[${i}]' must be a non-empty string or {text}`);
  });
  if (body.top_n !== undefined && (!Number.isInteger(body.top_n) || body.top_n < 1)) throw invalid('top_n', "'top_n' must be a positive integer");
  if (body.return_documents !== undefined && typeof body.return_documents !== 'boolean') throw invalid('return_documents', "'return_documents' must be a boolean");
  return body;
}
