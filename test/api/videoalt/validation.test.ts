import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

const long = (n: number) => 'x'.repeat(n);
const IMG = 'https://example.com/a.png';

/** [capability, title, expected status, body, field the message names] */
const CASES: Array<[string, string, 200 | 400, Record<string, unknown>, string?]> = [
  ['text2video', 'minimal', 200, { prompt: 'x' }],
  ['text2video', 'prompt missing', 400, {}, 'prompt'],
  ['text2video', 'prompt 2500 chars', 200, { prompt: long(2500) }],
  ['text2video', 'prompt 2501 chars', 400, { prompt: long(2501) }, 'prompt'],
  ['text2video', 'negative_prompt 2501 chars', 400, { prompt: 'x', negative_prompt: long(2501) }, 'negative_prompt'],
  ['text2video', 'model_name of image2video only', 400, { prompt: 'x', model_name: 'kling-v1-5' }, 'model_name'],
  ['text2video', 'cfg_scale 1.5', 400, { prompt: 'x', cfg_scale: 1.5 }, 'cfg_scale'],
  ['text2video', 'cfg_scale 0', 200, { prompt: 'x', cfg_scale: 0 }],
  ['text2video', 'mode fast', 400, { prompt: 'x', mode: 'fast' }, 'mode'],
  ['text2video', 'aspect_ratio 4:3', 400, { prompt: 'x', aspect_ratio: '4:3' }, 'aspect_ratio'],
  ['text2video', 'duration as a number', 400, { prompt: 'x', duration: 5 }, 'duration'],
  ['text2video', 'duration "2"', 400, { prompt: 'x', duration: '2' }, 'duration'],
  ['text2video', 'duration "3"', 200, { prompt: 'x', duration: '3' }],
  ['text2video', 'duration "15"', 200, { prompt: 'x', duration: '15' }],
  ['text2video', 'duration "16"', 400, { prompt: 'x', duration: '16' }, 'duration'],
  ['text2video', 'callback_url', 400, { prompt: 'x', callback_url: 'https://example.com/hook' }, 'callback_url'],
  ['text2video', 'camera simple with two axes', 400, { prompt: 'x', camera_control: { type: 'simple', config: { pan: 2, zoom: 1 } } }, 'camera_control'],
  ['text2video', 'camera simple with one axis', 200, { prompt: 'x', camera_control: { type: 'simple', config: { zoom: 5 } } }],
  ['text2video', 'camera axis 11', 400, { prompt: 'x', camera_control: { type: 'simple', config: { zoom: 11 } } }, 'camera_control.config.zoom'],
  ['text2video', 'custom multi-shot without multi_prompt', 400, { multi_shot: true, shot_type: 'customize' }, 'multi_prompt'],
  ['text2video', 'custom multi-shot without prompt', 200, { multi_shot: true, shot_type: 'customize', multi_prompt: [{ index: 1, prompt: 'a', duration: '5' }] }],
  ['image2video', 'image only', 200, { image: IMG }],
  ['image2video', 'image_tail only', 200, { image_tail: IMG }],
  ['image2video', 'neither image nor image_tail', 400, { prompt: 'x' }, 'image'],
  ['image2video', 'data: prefix', 400, { image: 'data:image/png;base64,AAAA' }, 'image'],
  ['image2video', 'raw base64', 200, { image: 'iVBORw0KGgoAAAANSUhEUg==' }],
  ['image2video', 'image_tail with camera_control', 400, { image: IMG, image_tail: IMG, camera_control: { type: 'down_back' } }, 'camera_control'],
  ['image2video', 'model_name kling-v1-5', 200, { image: IMG, model_name: 'kling-v1-5' }],
  ['image2video', 'element_list of 4', 400, { image: IMG, element_list: [1, 2, 3, 4].map((element_id) => ({ element_id })) }, 'element_list'],
  ['multi-image2video', 'one image', 200, { image_list: [{ image: IMG }] }],
  ['multi-image2video', 'four images', 200, { image_list: [1, 2, 3, 4].map(() => ({ image: IMG })) }],
  ['multi-image2video', 'no images', 400, { image_list: [] }, 'image_list'],
  ['multi-image2video', 'five images', 400, { image_list: [1, 2, 3, 4, 5].map(() => ({ image: IMG })) }, 'image_list'],
  ['multi-image2video', 'image_list missing', 400, { prompt: 'x' }, 'image_list'],
  ['multi-image2video', 'duration "10"', 200, { image_list: [{ image: IMG }], duration: '10' }],
  ['multi-image2video', 'duration "7"', 400, { image_list: [{ image: IMG }], duration: '7' }, 'duration'],
  ['multi-image2video', 'model_name kling-v2-6', 400, { image_list: [{ image: IMG }], model_name: 'kling-v2-6' }, 'model_name'],
];

describe('/videoalt create validation in the Kling envelope', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { simulator: { video_task_ms: 300 } } });
  });
  afterAll(() => gateway.stop());

  it.each(CASES)('%s: %s → %i', async (capability, _title, status, body, field) => {
    const response = await call(gateway, 'POST', `/videoalt/v1/videos/${capability}`, body);
    expect(response.status, response.text).toBe(status);
    if (status === 400) {
      expect(response.json).toEqual({ code: 1200, message: expect.any(String), request_id: expect.any(String) });
      expect(response.json.message).toContain(field);
    } else {
      expect(response.json.data.task_status).toBe('submitted');
    }
  });

  it('answers malformed JSON in the Kling envelope', async () => {
    const response = await call(gateway, 'POST', '/videoalt/v1/videos/text2video', '{"prompt":');
    expect(response.status).toBe(400);
    expect(response.json.code).toBe(1200);
  });
});
