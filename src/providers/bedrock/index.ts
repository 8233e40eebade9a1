import type { ProviderModule } from '../types.js';
import { API_KEY, REGION } from '../channel-fields.js';
import { lazySimulator } from '../../simulator/server.js';
import { bedrockPrices } from './prices.js';
import { authorizeBedrockRequest, BEDROCK_BASE_URL } from './endpoint.js';
import { anthropicMessagesToBedrock } from './from-anthropic-messages.js';
import { chatCompletionsToBedrock } from './from-chat-completions.js';
import { embeddingsToBedrock } from './from-embeddings.js';

export const bedrock: ProviderModule<'bedrock'> = {
  vendor: 'bedrock',
  // OpenTelemetry's GenAI conventions name Bedrock `aws.bedrock`.
  genAiProviderName: 'aws.bedrock',
  // No public models of its own: Bedrock serves the models a channel maps (a channel without
  // base_url gets the simulator below, with the channel's own model map).
  defaultModels: {},
  defaultBaseUrl: BEDROCK_BASE_URL,
  addedPathPrefixes: ['/model'],
  simulatorBasePath: '',
  // SigV4 over the request, or the API key as a bearer.
  authorize: (credentials, request, nowMs) => authorizeBedrockRequest(credentials, request, nowMs),
  // Converse for every chat-shaped family; Anthropic-native /v1/messages on Claude and the
  // Titan and Cohere embeddings through InvokeModel.
  pairs: {
    'chat-completions': chatCompletionsToBedrock,
    messages: chatCompletionsToBedrock,
    'anthropic-messages': anthropicMessagesToBedrock,
    embeddings: embeddingsToBedrock,
  },
  simulator: lazySimulator(() => import('./simulator.js').then((m) => m.bedrockSimulator)),
  channelFields: {
    credentials: [
      { ...REGION, hint: 'us-east-1 (or the region in base_url)' },
      { name: 'aws_access_key_id', type: 'text', label: 'AWS access key ID', required: false, secret: true, row: true, hint: 'with the secret access key; or an API key; or none: the AWS chain (environment, IRSA role, ECS task role)' },
      { name: 'aws_secret_access_key', type: 'text', label: 'AWS secret access key', required: false, secret: true },
      { name: 'aws_session_token', type: 'text', label: 'AWS session token', required: false, secret: true, hint: 'temporary credentials only' },
      { ...API_KEY, label: 'Bedrock API key', required: false, hint: 'sent as a bearer token instead of SigV4' },
    ],
    baseUrlRequired: false,
  },
  prices: bedrockPrices,
};
