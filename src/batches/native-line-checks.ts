import type { BatchEndpoint, BatchLineOutcome } from '../contracts/batch-line.js';
import type { EndpointFamily } from '../contracts/endpoint-family.js';
import { GatewayError, isGatewayError } from '../errors.js';
import type { GatewayDeps } from '../gateway-deps.js';
import type { ApiKey } from '../keys/key-store.js';
import { assertModelAllowed, familyRefusal } from '../plugins/auth.js';
import { envelopeForPath, renderError } from '../api/envelopes.js';
import { validateChatCompletionsRequest } from '../api/chat-completions/schemas.js';
import { validateEmbeddingsRequest } from '../api/embeddings/schemas.js';
import { validateResponsesRequest } from '../api/responses/schemas.js';

const FAMILY: Record<BatchEndpoint, EndpointFamily> = {
  '/v1/chat/completions': 'chat-completions',
  '/v1/embeddings': 'embeddings',
  '/v1/responses': 'responses',
};

const VALIDATE: Record<BatchEndpoint, (body: unknown, deps: GatewayDeps) => unknown> = {
  '/v1/chat/completions': (body, deps) => validateChatCompletionsRequest(body, deps.catalog),
  '/v1/embeddings': (body, deps) => validateEmbeddingsRequest(body, deps.catalog),
  '/v1/responses': (body, deps) => validateResponsesRequest(body, deps.catalog),
};

/**
 * What the sync endpoint would answer a line before any upstream sees it, for lines sent in a
 * vendor's batch (issue 46): self-run lines go through the endpoint itself and get this for free,
 * these would otherwise skip the key's state, its endpoint and model permissions and the spec's
 * body rules. Undefined when the line may go; else its outcome (status and the family's error body).
 */
export function refusalOfLine(deps: GatewayDeps, key: ApiKey | undefined, endpoint: BatchEndpoint, customId: string, body: unknown): BatchLineOutcome | undefined {
  try {
    const keyRefusal = keyStateRefusal(key, deps.now()) ?? familyRefusal(key!, FAMILY[endpoint]);
    if (keyRefusal) throw keyRefusal;
    assertModelAllowed(key, String((body as { model?: unknown }).model));
    VALIDATE[endpoint](body, deps);
    return undefined;
  } catch (error) {
    if (!isGatewayError(error)) throw error;
    return { customId, response: { statusCode: error.kind.status, body: renderError(envelopeForPath(endpoint), error) } };
  }
}

function keyStateRefusal(key: ApiKey | undefined, now: number): GatewayError | undefined {
  if (!key || key.revokedAt !== null) return new GatewayError('GW_AUTH_KEY_REVOKED', 'This API key has been revoked.');
  if (key.disabledAt !== null) return new GatewayError('GW_AUTH_KEY_DISABLED', 'This API key has been disabled.');
  if (key.expiresAt !== null && key.expiresAt <= now) return new GatewayError('GW_AUTH_KEY_EXPIRED', 'This API key has expired.');
  return undefined;
}
