import { openAICompatibleSimulator } from '../openai-compatible/simulator.js';
import { openAIResponsesSimHandler } from '../openai-compatible/simulator-responses.js';
import { firstMatching } from '../../simulator/server.js';
import { volcengineOpenApiSimHandler } from './simulator-openapi.js';

const ARK_ERRORS: Record<number, [type: string, code: string]> = {
  400: ['BadRequest', 'InvalidParameter'],
  401: ['Unauthorized', 'AuthenticationError'],
  403: ['Forbidden', 'AccessDenied'],
  404: ['NotFound', 'InvalidEndpointOrModel.NotFound'],
  429: ['TooManyRequests', 'RateLimitExceeded.EndpointRPMExceeded'],
};

/** Ark's error body (volcengine-ark.md "Error format"). */
export const arkErrorBody = (status: number, message: string) => {
  const [type, code] = ARK_ERRORS[status] ?? ['InternalServiceError', 'InternalServiceError'];
  return { error: { code, message: `${message} Request ID: simulated`, param: '', type } };
};

const isArkReasoningModel = (model: string): boolean => model.startsWith('doubao-seed');

export const volcengineArkSimulator = openAICompatibleSimulator({
  vendor: 'volcengine-ark',
  basePath: '/api/v3',
  errorBody: arkErrorBody,
  isReasoningModel: isArkReasoningModel,
  hasThinkingSwitch: true,
  alwaysStreamUsage: false,
  // Ark's Responses API (volcengine-ark.md "Responses API") and the signed asset-library OpenAPI.
  extraRoutes: firstMatching(
    openAIResponsesSimHandler({
      vendor: 'volcengine-ark',
      basePath: '/api/v3',
      errorBody: arkErrorBody,
      isReasoningModel: isArkReasoningModel,
      hasThinkingSwitch: true,
    }),
    volcengineOpenApiSimHandler(),
  ),
});
