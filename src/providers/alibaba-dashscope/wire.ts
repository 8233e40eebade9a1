/** DashScope video-synthesis wire types: the fields we write or read (alibaba-dashscope.md). */

export type DashScopeResolution = '720P' | '1080P';
export type DashScopeRatio = '16:9' | '9:16' | '1:1' | '4:3' | '3:4';

export interface DashScopeVideoSynthesisRequest {
  model: string;
  input: {
    prompt: string;
    media: Array<{ type: 'reference_image'; url: string }>;
  };
  /** All optional; DashScope's defaults apply to what is left out (1080P, 16:9, 5 s, watermark on). */
  parameters?: {
    resolution?: DashScopeResolution;
    ratio?: DashScopeRatio;
    duration?: number;
    watermark?: boolean;
    seed?: number;
  };
}

export type DashScopeTaskStatus = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELED' | 'UNKNOWN';

export interface DashScopeCreateResponse {
  request_id?: string;
  output: { task_id: string; task_status: DashScopeTaskStatus };
}

export interface DashScopeTaskResponse {
  request_id?: string;
  output: {
    task_id: string;
    task_status: DashScopeTaskStatus;
    submit_time?: string;
    scheduled_time?: string;
    end_time?: string;
    video_url?: string;
    /** Present on FAILED. */
    code?: string;
    message?: string;
  };
  /** Present on success only. */
  usage?: {
    duration?: number;
    output_video_duration?: number;
    video_count?: number;
    /** Output resolution tier: 720 or 1080. */
    SR?: number;
    ratio?: string;
  };
}

/** Synchronous error body: no `error` wrapper. */
export interface DashScopeErrorBody {
  request_id?: string;
  code?: string;
  message?: string;
}
