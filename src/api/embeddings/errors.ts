import type { FamilyErrors } from '../../contracts/family-errors.js';
import type { GatewayError } from '../../errors.js';

/**
 * OpenAI's full envelope, `param` included: embedding and rerank clients name the field they got
 * wrong from it (/v1/embeddings, /v1/rerank).
 */
export const renderOpenAIError = (error: GatewayError): unknown => ({
  error: { message: error.message, type: error.kind.type, param: error.param ?? null, code: error.kind.publicCode },
});

export const openaiErrors: FamilyErrors = { schemaName: 'OpenAIError', render: renderOpenAIError };
