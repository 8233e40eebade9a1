import { openAICompatibleSimulator } from './openai-compatible.js';

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

export const volcengineArkSimulator = openAICompatibleSimulator({
  vendor: 'volcengine-ark',
  basePath: '/api/v3',
  errorBody: arkErrorBody,
  isReasoningModel: (model) => model.startsWith('doubao-seed'),
  hasThinkingSwitch: true,
  alwaysStreamUsage: false,
});
