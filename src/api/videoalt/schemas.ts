import { Type, type TSchema } from 'typebox';
import { VIDEOALT_MODELS } from '../../protocols/kling-video/types.js';
import { GatewayError } from '../../errors.js';
import type { KlingCapability, KlingCreateBody } from '../../protocols/kling-video/types.js';
import { compileValidator, type Validator } from '../../validation/compile.js';
import { NO_NUL } from '../../validation/limits.js';

/**
 * The /videoalt create bodies: Kling-native, per capability (shared/protocols/kling.md). Fields
 * the notes document are checked here; other fields pass on to Kling unchanged. `model_name`
 * may be left out: Kling then uses its documented default (kling-v1; kling-v1-6 for multi-image),
 * which the gateway makes explicit so the channel's model mapping applies.
 * `callback_url` is refused: the gateway owns the task and the upstream result URL, so clients poll.
 */
const enumOf = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });

export const DEFAULT_MODEL: Record<KlingCapability, string> = { text2video: 'kling-v1', image2video: 'kling-v1', 'multi-image2video': 'kling-v1-6' };

/** Kling's clip lengths, 3 to 15 seconds. */
export const MAX_KLING_SECONDS = 15;
const DURATIONS = Array.from({ length: MAX_KLING_SECONDS - 2 }, (_, i) => String(i + 3));
const Prompt = Type.String({ maxLength: 2500 });
const CameraAxis = Type.Number({ minimum: -10, maximum: 10 });
/** A trajectory point in image pixels (Kling: at most 77 points a trajectory). */
const Pixel = Type.Integer({ minimum: -100_000, maximum: 100_000 });
const CAMERA_AXES = ['horizontal', 'vertical', 'pan', 'tilt', 'roll', 'zoom'] as const;
const CameraControl = Type.Object({
  type: enumOf(['simple', 'down_back', 'forward_up', 'right_turn_forward', 'left_turn_forward']),
  config: Type.Optional(Type.Object(Object.fromEntries(CAMERA_AXES.map((axis) => [axis, Type.Optional(CameraAxis)])))),
});
const ShotPrompt = Type.Object({
  index: Type.Integer({ minimum: 1, maximum: 6 }),
  prompt: Type.String({ maxLength: 512 }),
  duration: Type.Union([Type.String({ pattern: '^[0-9]{1,3}$' }), Type.Integer({ minimum: 1, maximum: 15 })]),
});

const common = {
  prompt: Type.Optional(Prompt),
  negative_prompt: Type.Optional(Prompt),
  mode: Type.Optional(enumOf(['std', 'pro'])),
  external_task_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: NO_NUL })),
  callback_url: Type.Optional(Type.String()),
};
const shotsAndSound = {
  cfg_scale: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  multi_shot: Type.Optional(Type.Boolean()),
  shot_type: Type.Optional(enumOf(['customize', 'intelligence'])),
  multi_prompt: Type.Optional(Type.Array(ShotPrompt, { minItems: 1, maxItems: 6 })),
  sound: Type.Optional(enumOf(['on', 'off'])),
  voice_list: Type.Optional(Type.Array(Type.Object({ voice_id: Type.String({ minLength: 1 }) }), { maxItems: 2 })),
  camera_control: Type.Optional(CameraControl),
  duration: Type.Optional(enumOf(DURATIONS)),
  watermark_info: Type.Optional(Type.Object({ enabled: Type.Boolean() })),
};
const AspectRatio = enumOf(['16:9', '9:16', '1:1']);
/** Kling takes a URL or RAW base64 (no `data:` prefix) for images. */
const ImageRef = Type.String({ minLength: 1 });

export const Text2VideoRequest = Type.Object({
  model_name: Type.Optional(enumOf(VIDEOALT_MODELS.text2video)),
  ...common,
  ...shotsAndSound,
  aspect_ratio: Type.Optional(AspectRatio),
});

export const Image2VideoRequest = Type.Object({
  model_name: Type.Optional(enumOf(VIDEOALT_MODELS.image2video)),
  ...common,
  ...shotsAndSound,
  image: Type.Optional(ImageRef),
  image_tail: Type.Optional(ImageRef),
  element_list: Type.Optional(Type.Array(Type.Object({ element_id: Type.Union([Type.String({ maxLength: 64 }), Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })]) }), { maxItems: 3 })),
  static_mask: Type.Optional(ImageRef),
  dynamic_masks: Type.Optional(
    Type.Array(
      Type.Object({ mask: ImageRef, trajectories: Type.Array(Type.Object({ x: Pixel, y: Pixel }), { minItems: 1, maxItems: 77 }) }),
      { minItems: 1, maxItems: 6 },
    ),
  ),
});

export const MultiImage2VideoRequest = Type.Object({
  model_name: Type.Optional(enumOf(VIDEOALT_MODELS['multi-image2video'])),
  ...common,
  image_list: Type.Array(Type.Object({ image: ImageRef }), { minItems: 1, maxItems: 4 }),
  duration: Type.Optional(enumOf(['5', '10'])),
  aspect_ratio: Type.Optional(AspectRatio),
});

export const VIDEOALT_SCHEMAS: Record<KlingCapability, TSchema> = {
  text2video: Text2VideoRequest,
  image2video: Image2VideoRequest,
  'multi-image2video': MultiImage2VideoRequest,
};

const SHAPE_VALIDATORS = Object.fromEntries(
  Object.entries(VIDEOALT_SCHEMAS).map(([capability, schema]) => [capability, compileValidator(schema)]),
) as Record<KlingCapability, Validator<unknown>>;

const invalid = (param: string, message: string): GatewayError => new GatewayError('GW_REQ_INVALID_PARAM', message, { param });

/** Schema rules, then the cross-field rules Kling documents in prose. */
export function validateVideoaltRequest(capability: KlingCapability, body: unknown): KlingCreateBody {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalid('body', 'Request body must be a JSON object');
  const request = SHAPE_VALIDATORS[capability](body) as KlingCreateBody;
  if (request.callback_url !== undefined) {
    throw invalid('callback_url', `'callback_url' is not supported by this gateway; poll GET /videoalt/v1/videos/${capability}/{task_id}`);
  }
  const isCustomShots = request.multi_shot === true && request.shot_type === 'customize';
  if (capability !== 'multi-image2video' && isCustomShots && request.multi_prompt === undefined) {
    throw invalid('multi_prompt', "'multi_prompt' is required when multi_shot is true and shot_type is 'customize'");
  }
  if (capability === 'text2video' && !isCustomShots && (request.prompt === undefined || request.prompt === '')) {
    throw invalid('prompt', "'prompt' is required");
  }
  if (capability === 'image2video') checkImage2Video(request);
  for (const [field, value] of imageFields(request)) {
    if (value.startsWith('data:')) throw invalid(field, `'${field}' must be a URL or raw base64 without a 'data:' prefix`);
  }
  checkCameraControl(request);
  return request;
}

function checkImage2Video(request: KlingCreateBody): void {
  if (request.image === undefined && request.image_tail === undefined) throw invalid('image', "At least one of 'image' and 'image_tail' is required");
  const exclusive = ['image_tail', 'static_mask', 'camera_control'].filter((f) => request[f] !== undefined);
  if (request.dynamic_masks !== undefined && !exclusive.includes('static_mask')) exclusive.push('dynamic_masks');
  if (exclusive.length > 1) throw invalid(exclusive[1]!, `'image_tail', the motion-brush masks and 'camera_control' cannot be combined (got ${exclusive.join(', ')})`);
}

function imageFields(request: KlingCreateBody): Array<[string, string]> {
  const fields: Array<[string, string]> = [];
  for (const name of ['image', 'image_tail', 'static_mask']) if (typeof request[name] === 'string') fields.push([name, request[name] as string]);
  const list = request.image_list as Array<{ image: string }> | undefined;
  list?.forEach((item, i) => fields.push([`image_list[${i}].image`, item.image]));
  return fields;
}

/** Kling: for type `simple`, `config` is required and exactly one axis is non-zero. */
function checkCameraControl(request: KlingCreateBody): void {
  const control = request.camera_control as { type: string; config?: Record<string, number | undefined> } | undefined;
  if (control?.type !== 'simple') return;
  const nonZero = CAMERA_AXES.filter((axis) => (control.config?.[axis] ?? 0) !== 0);
  if (nonZero.length !== 1) throw invalid('camera_control.config', "'camera_control.config' must set exactly one non-zero axis when type is 'simple'");
}

export const effectiveModel = (capability: KlingCapability, body: KlingCreateBody): string => body.model_name ?? DEFAULT_MODEL[capability];
