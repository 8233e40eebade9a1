import { Type, type TSchema } from 'typebox';
import { FileUploadForm } from '../files/schemas.js';

/**
 * Response bodies for the OpenAPI document only (the routes answer the upstream's translated
 * bodies without a serializer, so nothing here strips fields). Shapes follow the spec's
 * resources and, where it says "not shown", the vendor protocol each family speaks.
 */
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Open = { additionalProperties: true };

const ToolCall = Type.Object({ id: Type.String(), type: Type.Literal('function'), function: Type.Object({ name: Type.String(), arguments: Type.String({ description: 'JSON text' }) }) }, Open);
const ChatUsage = Type.Object(
  {
    prompt_tokens: Type.Integer(),
    completion_tokens: Type.Integer(),
    total_tokens: Type.Integer(),
    completion_tokens_details: Type.Optional(Type.Object({ reasoning_tokens: Type.Optional(Type.Integer()) }, Open)),
  },
  Open,
);

export const ChatCompletion = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('chat.completion'),
    created: Type.Integer(),
    model: Type.String(),
    choices: Type.Array(
      Type.Object(
        {
          index: Type.Integer(),
          message: Type.Object(
            {
              role: Type.Literal('assistant'),
              content: Nullable(Type.String()),
              reasoning_content: Type.Optional(Type.String()),
              tool_calls: Type.Optional(Type.Array(ToolCall)),
            },
            Open,
          ),
          finish_reason: Nullable(Type.String({ enum: ['stop', 'length', 'tool_calls', 'content_filter'] })),
          logprobs: Type.Optional(Nullable(Type.Object({}, Open))),
        },
        Open,
      ),
    ),
    usage: ChatUsage,
  },
  { title: 'ChatCompletion', ...Open },
);

export const ChatCompletionChunk = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('chat.completion.chunk'),
    created: Type.Integer(),
    model: Type.String(),
    choices: Type.Array(Type.Object({ index: Type.Integer(), delta: Type.Object({}, Open), finish_reason: Nullable(Type.String()) }, Open)),
    usage: Type.Optional(Nullable(ChatUsage)),
  },
  { title: 'ChatCompletionChunk', description: 'One `data:` event; the stream ends with `data: [DONE]`.', ...Open },
);

export const ResponseObject = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('response'),
    created_at: Type.Integer(),
    completed_at: Type.Optional(Nullable(Type.Integer())),
    model: Type.String(),
    status: Type.String({ enum: ['completed', 'failed', 'in_progress', 'incomplete'] }),
    output: Type.Array(Type.Object({ type: Type.String({ description: '`message`, `reasoning` or `function_call`' }) }, Open)),
    usage: Type.Object(
      { input_tokens: Type.Integer(), output_tokens: Type.Integer(), total_tokens: Type.Integer(), output_tokens_details: Type.Optional(Type.Object({ reasoning_tokens: Type.Integer() }, Open)) },
      Open,
    ),
  },
  { title: 'Response', ...Open },
);

export const ResponseStreamEvent = Type.Object(
  { type: Type.String({ description: 'Same as the SSE event name, e.g. `response.output_text.delta`' }), sequence_number: Type.Integer() },
  { title: 'ResponseStreamEvent', ...Open },
);

const Part = Type.Object(
  {
    text: Type.Optional(Type.String()),
    thought: Type.Optional(Type.Boolean()),
    inlineData: Type.Optional(Type.Object({ mimeType: Type.String(), data: Type.String({ description: 'base64' }) })),
    functionCall: Type.Optional(Type.Object({ name: Type.String(), args: Type.Object({}, Open) }, Open)),
  },
  Open,
);
export const GenerateContentResponse = Type.Object(
  {
    candidates: Type.Optional(Type.Array(Type.Object({ content: Type.Object({ role: Type.Literal('model'), parts: Type.Array(Part) }), finishReason: Type.Optional(Type.String()), index: Type.Optional(Type.Integer()) }, Open))),
    usageMetadata: Type.Optional(
      Type.Object(
        {
          promptTokenCount: Type.Integer(),
          candidatesTokenCount: Type.Optional(Type.Integer()),
          totalTokenCount: Type.Integer(),
          thoughtsTokenCount: Type.Optional(Type.Integer()),
          trafficType: Type.Optional(Type.String()),
        },
        Open,
      ),
    ),
    modelVersion: Type.String(),
    responseId: Type.Optional(Type.String()),
    createTime: Type.Optional(Type.String()),
  },
  { title: 'GenerateContentResponse', ...Open },
);

export const CountTokensResponse = Type.Object({ totalTokens: Type.Integer() }, { title: 'CountTokensResponse' });

export const ImagesResponse = Type.Object(
  {
    created: Type.Integer(),
    data: Type.Array(Type.Object({ url: Type.Optional(Type.String()), b64_json: Type.Optional(Type.String()), revised_prompt: Type.Optional(Type.String()) }, Open)),
    usage: Type.Optional(Type.Object({ input_tokens: Type.Integer(), output_tokens: Type.Integer(), total_tokens: Type.Integer() }, Open)),
  },
  { title: 'ImagesResponse', ...Open },
);

export const VideoTask = Type.Object(
  {
    id: Type.String({ description: '`asyntask_<suffix>`' }),
    task_id: Type.String(),
    object: Type.Literal('video'),
    model: Type.String(),
    status: Type.String({ enum: ['queued', 'in_progress', 'completed', 'failed'] }),
    progress: Type.Integer({ minimum: 0, maximum: 100 }),
    created_at: Type.Integer(),
    completed_at: Type.Optional(Nullable(Type.Integer())),
    video_url: Type.Optional(Nullable(Type.String())),
    error: Type.Optional(Nullable(Type.Object({ code: Type.String(), message: Type.String() }))),
  },
  { title: 'VideoTask', ...Open },
);

export const KlingTaskEnvelope = Type.Object(
  {
    code: Type.Integer({ description: '0 on success' }),
    message: Type.String(),
    request_id: Type.String(),
    data: Type.Object({ task_id: Type.String(), task_status: Type.String({ enum: ['submitted', 'processing', 'succeed', 'failed'] }), created_at: Type.Integer(), updated_at: Type.Integer() }, Open),
  },
  { title: 'KlingTask', ...Open },
);

const Asset = Type.Object(
  { Id: Type.String(), Name: Nullable(Type.String()), AssetType: Type.String(), Status: Type.String(), URL: Nullable(Type.String()), MimeType: Nullable(Type.String()), Size: Nullable(Type.Integer()), CreateTime: Type.String() },
  { title: 'Asset', ...Open },
);
export const AssetDeletion = Type.Object({ Id: Type.String(), Deleted: Type.Boolean() }, { title: 'AssetDeletion' });
export const AssetList = Type.Object({ Items: Type.Array(Asset), PageNumber: Type.Integer(), PageSize: Type.Integer(), TotalCount: Type.Integer() }, { title: 'AssetList' });
export { Asset };

export const OpenAIModel = Type.Object({ id: Type.String(), object: Type.Literal('model'), created: Type.Integer(), owned_by: Type.String() }, { title: 'Model' });

const json = (schema: TSchema) => ({ 'application/json': { schema } });
const sse = (schema: TSchema) => ({ 'text/event-stream': { schema } });
const binary = (type: string) => ({ [type]: { schema: { type: 'string', format: 'binary' } } });

/** Success content by `METHOD path` (OpenAPI path syntax), for operations whose route has no response schema. */
export const SUCCESS_CONTENT: Record<string, Record<string, { schema: unknown }>> = {
  'post /v1/chat/completions': { ...json(ChatCompletion), ...sse(ChatCompletionChunk) },
  'post /v1/messages': { ...json(ChatCompletion), ...sse(ChatCompletionChunk) },
  'post /v1/responses': { ...json(ResponseObject), ...sse(ResponseStreamEvent) },
  'post /v1/images/generations': json(ImagesResponse),
  'post /v1/video/generations': json(VideoTask),
  'get /v1/video/generations/{id}': json(VideoTask),
  'get /v1/video/generations/{id}/content': binary('video/mp4'),
  'get /media/videos/{file}': binary('video/mp4'),
  'get /v1/files/{id}/content': binary('application/octet-stream'),
  'post /videoalt/v1/videos/text2video': json(KlingTaskEnvelope),
  'post /videoalt/v1/videos/image2video': json(KlingTaskEnvelope),
  'post /videoalt/v1/videos/multi-image2video': json(KlingTaskEnvelope),
  'get /videoalt/v1/videos/{id}': json(KlingTaskEnvelope),
  'get /videoalt/v1/videos/{capability}/{id}': json(KlingTaskEnvelope),
  'post /cloud/asset/DeleteAsset': json(AssetDeletion),
  'post /cloud/asset/CreateAsset': json(Asset),
  'post /cloud/asset/GetAsset': json(Asset),
  'post /cloud/asset/ListAssets': json(AssetList),
};

/** Request content by `METHOD path` for bodies the route reads itself (multipart forms streamed in, not validated as JSON). */
export const REQUEST_CONTENT: Record<string, Record<string, { schema: unknown }>> = {
  'post /v1/files': { 'multipart/form-data': { schema: FileUploadForm } },
};

/** Success content of the native generate-content methods, by method. */
export const GOOGLE_METHOD_CONTENT: Record<string, Record<string, { schema: unknown }>> = {
  generateContent: json(GenerateContentResponse),
  streamGenerateContent: { ...sse(GenerateContentResponse), 'application/json': { schema: Type.Array(GenerateContentResponse) } },
  countTokens: json(CountTokensResponse),
};
