import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

const IMG = 'https://example.com/a.png';
const base = { model: 'zeta-1.0-r2v', prompt: 'A horse runs', images: [IMG] };

/** [title, expected status, body, field the 400 message must name] */
const CASES: Array<[string, 200 | 400, Record<string, unknown>, string?]> = [
  ['images: 0 items', 400, { ...base, images: [] }, 'images'],
  ['images: 1 item', 200, base],
  ['images: 3 items', 200, { ...base, images: [IMG, IMG, IMG] }],
  ['images: 4 items', 400, { ...base, images: [IMG, IMG, IMG, IMG] }, 'images'],
  ['images: not a URL', 400, { ...base, images: ['cat.png'] }, 'images[0]'],
  ['images: data URL', 200, { ...base, images: ['data:image/png;base64,iVBORw0KGgo='] }],
  ['duration 2', 400, { ...base, duration: 2 }, 'duration'],
  ['duration 3', 200, { ...base, duration: 3 }],
  ['duration 15', 200, { ...base, duration: 15 }],
  ['duration 16', 400, { ...base, duration: 16 }, 'duration'],
  ['duration 5.5', 400, { ...base, duration: 5.5 }, 'duration'],
  ['duration "5"', 400, { ...base, duration: '5' }, 'duration'],
  ['seed -1', 400, { ...base, seed: -1 }, 'seed'],
  ['seed 0', 200, { ...base, seed: 0 }],
  ['seed 2147483647', 200, { ...base, seed: 2147483647 }],
  ['seed 2147483648', 400, { ...base, seed: 2147483648 }, 'seed'],
  ['resolution 720P', 200, { ...base, resolution: '720P' }],
  ['resolution 1080P', 200, { ...base, resolution: '1080P' }],
  ['resolution 480P', 400, { ...base, resolution: '480P' }, 'resolution'],
  ['ratio 4:3', 200, { ...base, ratio: '4:3' }],
  ['ratio 21:9', 400, { ...base, ratio: '21:9' }, 'ratio'],
  ['watermark "yes"', 400, { ...base, watermark: 'yes' }, 'watermark'],
  ['model outside the enum', 400, { ...base, model: 'zeta-2.0-r2v' }, 'model'],
  ['model missing', 400, { prompt: 'x', images: [IMG] }, 'model'],
  ['prompt missing', 400, { model: 'zeta-1.0-r2v', images: [IMG] }, 'prompt'],
  ['prompt empty', 400, { ...base, prompt: '' }, 'prompt'],
  ['images missing', 400, { model: 'zeta-1.0-r2v', prompt: 'x' }, 'images'],
  ['parameters.duration 16', 400, { ...base, parameters: { duration: 16 } }, 'parameters.duration'],
  ['parameters.seed 2147483647', 200, { ...base, parameters: { seed: 2147483647 } }],
  ['parameters.ratio 5:4', 400, { ...base, parameters: { ratio: '5:4' } }, 'parameters.ratio'],
  ['parameters.prompt (unknown there)', 400, { ...base, parameters: { prompt: 'x' } }, 'prompt'],
  ['same value in both places', 200, { ...base, duration: 5, parameters: { duration: 5 } }],
  ['different values in both places', 400, { ...base, duration: 5, parameters: { duration: 6 } }, 'parameters.duration'],
  ['unknown top-level field (accepted, not forwarded)', 200, { ...base, user: 'u-1' }],
];

describe('POST /v1/video/generations validation (spec §4 bounds and enums)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { simulator: { video_task_ms: 300 } } });
  });
  afterAll(() => gateway.stop());

  it.each(CASES)('%s → %i', async (_title, status, body, field) => {
    const response = await call(gateway, 'POST', '/v1/video/generations', body);
    expect(response.status, response.text).toBe(status);
    if (status === 400) {
      expect(response.json).toEqual({ error: { message: expect.any(String), type: 'invalid_request_error', code: 'invalid_parameter' } });
      expect(response.json.error.message).toContain(field);
    } else {
      expect(response.json.status).toBe('queued');
    }
  });

  it('takes the tuning fields from parameters into the upstream body', async () => {
    const simulator = gateway.deps.simulators.get('simulator-alibaba-dashscope')!;
    const response = await call(gateway, 'POST', '/v1/video/generations', { ...base, user: 'u-1', parameters: { resolution: '1080P', duration: 10, seed: 7 } });
    expect(response.status).toBe(200);
    expect(simulator.requests.at(-1)!.body).toEqual({
      model: 'happyhorse-1.0-r2v',
      input: { prompt: base.prompt, media: [{ type: 'reference_image', url: IMG }] },
      parameters: { resolution: '1080P', duration: 10, seed: 7 },
    });
  });

  it('rejects a body that is not JSON and a missing key in the general envelope', async () => {
    const broken = await call(gateway, 'POST', '/v1/video/generations', '{"model":');
    expect(broken.status).toBe(400);
    expect(broken.json.error.type).toBe('invalid_request_error');
    const noKey = await call(gateway, 'POST', '/v1/video/generations', base, {});
    expect(noKey.status).toBe(401);
    expect(noKey.json.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
  });

  it("refuses a key that may not use the model with 403", async () => {
    const { secret } = await gateway.deps.keys.create({ name: 'chat-only', models: ['delta-4.1'] });
    const denied = await call(gateway, 'POST', '/v1/video/generations', base, { authorization: `Bearer ${secret}` });
    expect(denied.status).toBe(403);
    expect(denied.json.error.code).toBe('permission_denied');
  });
});
