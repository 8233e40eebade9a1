import { openAICompatibleSimulator } from '../openai-compatible/simulator.js';
import { openAIResponsesSimHandler } from '../openai-compatible/simulator-responses.js';
import { openaiErrorBody } from '../openai/simulator.js';

/** Azure's v1 form (`/openai/v1/…`) answered like OpenAI: a channel without base_url calls it with no api-version. */
export const azureOpenAISimulator = openAICompatibleSimulator({
  vendor: 'azure-openai',
  basePath: '/openai/v1',
  errorBody: openaiErrorBody,
  isReasoningModel: (model) => /^o\d/.test(model),
  hasThinkingSwitch: false,
  alwaysStreamUsage: false,
  extraRoutes: openAIResponsesSimHandler({
    vendor: 'azure-openai',
    basePath: '/openai/v1',
    errorBody: openaiErrorBody,
    isReasoningModel: (model) => /^o\d/.test(model),
    hasThinkingSwitch: false,
  }),
});
