import { openAICompatibleSimulator } from '../openai-compatible/simulator.js';
import { openAIResponsesSimHandler } from '../openai-compatible/simulator-responses.js';
import { openaiErrorBody } from '../openai/simulator.js';
import { firstMatching } from '../../simulator/server.js';
import { azureImagesSimHandler } from './simulator-images.js';
import { openAIBatchesSimHandler } from '../openai-compatible/simulator-batches.js';

const BASE_PATH = '/openai/v1';

/** Azure's v1 form (`/openai/v1/…`) answered like OpenAI: a channel without base_url calls it with no api-version. */
export const azureOpenAISimulator = openAICompatibleSimulator({
  vendor: 'azure-openai',
  basePath: BASE_PATH,
  errorBody: openaiErrorBody,
  isReasoningModel: (model) => /^o\d/.test(model),
  hasThinkingSwitch: false,
  alwaysStreamUsage: false,
  extraRoutes: firstMatching(
    openAIResponsesSimHandler({
      vendor: 'azure-openai',
      basePath: BASE_PATH,
      errorBody: openaiErrorBody,
      isReasoningModel: (model) => /^o\d/.test(model),
      hasThinkingSwitch: false,
    }),
    azureImagesSimHandler(BASE_PATH, openaiErrorBody),
    // Files and batches (issue 46): each line is answered by this same simulator.
    openAIBatchesSimHandler({ basePath: BASE_PATH, errorBody: openaiErrorBody, answer: (req, res) => azureOpenAISimulator.handle(req, res) }),
  ),
});
