import { openAICompatibleSimulator } from '../openai-compatible/simulator.js';
import { openAIResponsesSimHandler } from '../openai-compatible/simulator-responses.js';
import { openAIBatchesSimHandler } from '../openai-compatible/simulator-batches.js';
import { firstMatching } from '../../simulator/server.js';

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error', 429: 'rate_limit_error',
};

/** OpenAI's error body: `{error:{message,type,param,code}}` (openai.md §1). */
export const openaiErrorBody = (status: number, message: string) => ({
  error: { message, type: TYPE_BY_STATUS[status] ?? 'server_error', param: null, code: status === 429 ? 'rate_limit_exceeded' : null },
});

export const openaiSimulator = openAICompatibleSimulator({
  vendor: 'openai',
  basePath: '/v1',
  errorBody: openaiErrorBody,
  isReasoningModel: (model) => /^o\d/.test(model),
  hasThinkingSwitch: false,
  alwaysStreamUsage: false,
  extraRoutes: firstMatching(
    openAIResponsesSimHandler({
      vendor: 'openai',
      basePath: '/v1',
      errorBody: openaiErrorBody,
      isReasoningModel: (model) => /^o\d/.test(model),
      hasThinkingSwitch: false,
    }),
    // Files and batches (issue 46): each line is answered by this same simulator.
    openAIBatchesSimHandler({ basePath: '/v1', errorBody: openaiErrorBody, answer: (req, res) => openaiSimulator.handle(req, res) }),
  ),
});
