import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { measureTwice } from './measure-twice.js';

/**
 * Issue 34, "simulators stay cheap": the simulators serve every model no channel covers, in the
 * gateway's own process, so hostile tools must cost bounded work. On main 10,000 tools held the
 * loop for seconds (a regular expression per tool and word) and a 1 MB tool name answered 500.
 *
 * The bound is relative, as the rest of the watchdog's: the longest event-loop stall while the
 * hostile request runs, against the same request with `tool_choice: "none"` (the same bytes
 * parsed, validated and translated, with no tool matching), medians of a few runs each.
 */
const ROUNDS = 5;
/** A stall this many times the calibration's fails; main's 10,000 tools were about 40 times. */
const RATIO = 3;

const tool = (name: string) => ({ type: 'function', function: { name } });

describe('hostile tools on the simulators (issue 34)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  /** The longest event-loop delay (ms) while the request runs, and its answer. */
  const stallOf = async (body: object): Promise<{ status: number; text: string; stallMs: number }> => {
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const answer = await call(gateway, 'POST', '/v1/chat/completions', body);
    delay.disable();
    return { status: answer.status, text: answer.text, stallMs: delay.max / 1e6 };
  };
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

  async function compare(hostile: object): Promise<{ hostileMs: number; calibrationMs: number; statuses: number[] }> {
    const calibration = { ...hostile, tool_choice: 'none' };
    // Module loading and schema compilation happen on a gateway's first requests: not the request's own work.
    await stallOf(calibration);
    await stallOf(hostile);
    const hostileMs: number[] = [];
    const calibrationMs: number[] = [];
    const statuses: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const measured = await stallOf(hostile);
      statuses.push(measured.status);
      hostileMs.push(measured.stallMs);
      calibrationMs.push((await stallOf(calibration)).stallMs);
    }
    return { hostileMs: median(hostileMs), calibrationMs: median(calibrationMs), statuses };
  }

  for (const model of ['delta-4.1', 'epsilon-4.7']) {
    it(`${model}: 10,000 tools cost about what the same body without tool matching costs`, async () => {
      const tools = Array.from({ length: 10_000 }, (_, i) => tool(`t${i}_weather_lookup`));
      await measureTwice(`${model}: 10,000 tools`, async () => {
        const { hostileMs, calibrationMs, statuses } = await compare({ model, messages: [{ role: 'user', content: 'look up the weather' }], tools });
        expect(statuses.every((status) => status === 200)).toBe(true);
        return { within: hostileMs <= RATIO * calibrationMs, figures: `stall ${hostileMs.toFixed(1)} ms against ${calibrationMs.toFixed(1)} ms (bound ${RATIO}×)` };
      });
    });

    it(`${model}: a 1 MB tool name is answered (no 500), within the same bound`, async () => {
      await measureTwice(`${model}: a 1 MB tool name`, async () => {
        const { hostileMs, calibrationMs, statuses } = await compare({ model, messages: [{ role: 'user', content: 'call a tool' }], tools: [tool('x'.repeat(1 << 20))] });
        expect(statuses.every((status) => status === 200)).toBe(true);
        return { within: hostileMs <= RATIO * calibrationMs, figures: `stall ${hostileMs.toFixed(1)} ms against ${calibrationMs.toFixed(1)} ms (bound ${RATIO}×)` };
      });
    });
  }
});
