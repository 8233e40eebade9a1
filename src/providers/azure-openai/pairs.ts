import type { TranslateContext } from '../../contracts/translator.js';
import type { UpstreamCall } from '../../contracts/upstream-call.js';
import { chatCompletionsToOpenAICompatible } from '../openai-compatible/from-chat-completions.js';
import { embeddingsToOpenAICompatible } from '../openai-compatible/from-embeddings.js';
import { responsesPassThrough } from '../openai-compatible/responses-pass-through.js';
import { OPENAI_QUIRKS } from '../openai-compatible/quirks.js';
import { retargetPair } from '../retarget-pair.js';
import { contentFilterError } from './content-filter.js';
import { deploymentPath, RESPONSES_PATH } from './endpoint.js';
import { imagesToOpenAI } from './images.js';

/** The OpenAI call's path (`/chat/completions`) under the model's deployment. */
const underDeployment = (call: UpstreamCall, ctx: TranslateContext): UpstreamCall => ({ ...call, path: deploymentPath(ctx.upstreamModel, call.path) });

/**
 * Azure OpenAI speaks OpenAI's bodies (its extra `content_filter_results` and `choices: []`
 * filter chunks pass through the OpenAI translators), so its pairs are the openai module's at
 * Azure's paths. A deployment serves one model: the channel's model map names deployments.
 */
const chat = retargetPair(chatCompletionsToOpenAICompatible(OPENAI_QUIRKS), underDeployment, contentFilterError);

export const AZURE_OPENAI_PAIRS = {
  'chat-completions': chat,
  messages: chat,
  responses: retargetPair(responsesPassThrough, (call) => ({ ...call, path: RESPONSES_PATH }), contentFilterError),
  embeddings: retargetPair(embeddingsToOpenAICompatible({ maxInputsPerCall: 2048 }), underDeployment),
  images: retargetPair(imagesToOpenAI, underDeployment, contentFilterError),
};
