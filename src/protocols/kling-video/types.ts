/**
 * Kling's video-task protocol (shared/protocols/kling.md), spoken natively by the /videoalt
 * surface and by Kling upstreams. Only the fields the gateway reads or checks are named; the rest
 * of a create body passes through unchanged.
 */
export const KLING_CAPABILITIES = ['text2video', 'image2video', 'multi-image2video'] as const;
export type KlingCapability = (typeof KLING_CAPABILITIES)[number];

export interface KlingCreateBody {
  model_name?: string;
  prompt?: string;
  negative_prompt?: string;
  /** A string of seconds, e.g. "5". */
  duration?: string;
  external_task_id?: string;
  callback_url?: string;
  [field: string]: unknown;
}

/** A create request for one capability (the path segment decides the endpoint, and later the query path). */
export interface KlingVideoRequest {
  capability: KlingCapability;
  body: KlingCreateBody;
}

export type KlingTaskStatus = 'submitted' | 'processing' | 'succeed' | 'failed';

export interface KlingTask {
  task_id: string;
  task_status: KlingTaskStatus;
  task_status_msg?: string;
  task_info?: { external_task_id?: string };
  task_result?: { videos?: Array<{ id: string; url: string; watermark_url?: string; duration: string }> };
  created_at: number;
  updated_at: number;
}

/** Every Kling response: `code` 0 is success; timestamps are Unix milliseconds. */
export interface KlingEnvelope<Data> {
  code: number;
  message: string;
  request_id: string;
  data?: Data;
}

/** The models each capability accepts (spec §videoalt). */
export const VIDEOALT_MODELS = {
  text2video: ['kling-v1', 'kling-v1-6', 'kling-v2-master', 'kling-v2-1-master', 'kling-v2-5-turbo', 'kling-v2-6', 'kling-v3'],
  image2video: ['kling-v1', 'kling-v1-5', 'kling-v1-6', 'kling-v2-master', 'kling-v2-1', 'kling-v2-1-master', 'kling-v2-5-turbo', 'kling-v2-6', 'kling-v3'],
  'multi-image2video': ['kling-v1-6'],
} as const;
