/**
 * The neutral video-generation request (spec §4) after validation: the optional `parameters`
 * object has been merged into the top-level fields, so translators see one place per field.
 */
export interface VideoGenerationRequest {
  model: string;
  prompt: string;
  /** 1 to 3 reference image URLs (http(s) or `data:image/…;base64,`). */
  images: string[];
  resolution?: '720P' | '1080P';
  ratio?: '16:9' | '9:16' | '1:1' | '4:3' | '3:4';
  /** Seconds, 3 to 15. */
  duration?: number;
  watermark?: boolean;
  /** 0 to 2147483647. */
  seed?: number;
}
