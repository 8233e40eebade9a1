import { openAIBatchAdapter } from '../openai-compatible/batch.js';

/** `/openai/deployments/{deployment}/chat/completions` → `/chat/completions`: the `url` Azure's batch input lines name. */
const DEPLOYMENT_OP = /^\/openai\/deployments\/[^/]+(\/.*)$/;

/**
 * Azure OpenAI's Global Batch: OpenAI's files and batches protocol on Azure's resource paths
 * (endpoint.ts routes them to the deployment form with `api-version` or to the v1 form). Input
 * lines name the operation without a version (`/chat/completions`) and the deployment as `model`
 * (what the chat translator puts there), per Microsoft's batch guide; one deployment per batch.
 * Batches need a deployment of the Global Batch type: a channel whose deployments are not says
 * `batch: gateway`.
 */
export const azureOpenAIBatch = openAIBatchAdapter({
  nativeByDefault: () => true,
  apiPrefix: '/openai',
  lineUrl: (callPath) => DEPLOYMENT_OP.exec(callPath)?.[1] ?? callPath.replace(/^\/openai(?:\/v1)?/, ''),
  endpoints: ['/v1/chat/completions', '/v1/embeddings'],
});
