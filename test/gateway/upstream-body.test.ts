import { describe, expect, it } from 'vitest';
import { UpstreamBody, type FlowControl } from '../../src/gateway/upstream-body.js';

function flow() {
  const calls: string[] = [];
  const control: FlowControl = {
    pause: () => calls.push('pause'),
    resume: () => calls.push('resume'),
    abort: (reason) => calls.push(`abort: ${reason.message}`),
  };
  return { calls, control };
}

describe('UpstreamBody', () => {
  it('hands over everything that arrived between two reads as one buffer', async () => {
    const { control } = flow();
    const body = new UpstreamBody(control);
    body.push(Buffer.from('data: a\n\n'));
    body.push(Buffer.from('data: b\n\n'));
    expect(body.read()?.toString()).toBe('data: a\n\ndata: b\n\n');
    expect(body.read()).toBeNull();
    expect(body.finished).toBe(false);
    const waiting = body.readable();
    expect(waiting).toBeInstanceOf(Promise);
    body.push(Buffer.from('x'));
    await waiting;
    body.end();
    expect(body.read()?.toString()).toBe('x');
    expect(body.finished).toBe(true);
    expect(body.readable()).toBeUndefined();
  });

  it('pauses the upstream once 64 KB wait unread and resumes it when the reader catches up', () => {
    const { calls, control } = flow();
    const body = new UpstreamBody(control);
    for (let i = 0; i < 15; i++) body.push(Buffer.alloc(4096));
    expect(calls).toEqual([]);
    body.push(Buffer.alloc(4096));
    body.push(Buffer.alloc(4096));
    expect(calls).toEqual(['pause']);
    expect(body.read()?.length).toBe(17 * 4096);
    expect(calls).toEqual(['pause', 'resume']);
  });

  it('delivers the data before a failure, then throws it', async () => {
    const { control } = flow();
    const body = new UpstreamBody(control);
    body.push(Buffer.from('partial'));
    body.fail(new Error('socket reset'));
    expect(body.read()?.toString()).toBe('partial');
    expect(() => body.read()).toThrow('socket reset');
    const failing = new UpstreamBody(control);
    const reading = failing.text();
    failing.fail(new Error('headers then nothing'));
    await expect(reading).rejects.toThrow('headers then nothing');
  });

  it('reads a whole body as text or JSON, across chunks and multi-byte characters', async () => {
    const { control } = flow();
    const body = new UpstreamBody(control);
    const bytes = Buffer.from(JSON.stringify({ text: '网关 ok' }));
    const reading = body.json();
    body.push(bytes.subarray(0, 11));
    body.push(bytes.subarray(11));
    body.end();
    await expect(reading).resolves.toEqual({ text: '网关 ok' });
  });

  it('destroying an unfinished body aborts the exchange once and drops what waits', () => {
    const { calls, control } = flow();
    const body = new UpstreamBody(control);
    body.push(Buffer.from('unread'));
    body.destroy();
    body.destroy();
    expect(calls).toEqual(['abort: The gateway stopped reading the upstream body']);
    // The abort comes back as a failure: a destroyed body reads as finished, not as an error.
    body.fail(new Error('aborted'));
    expect(body.read()).toBeNull();
    expect(body.finished).toBe(true);
    const done = new UpstreamBody(control);
    done.end();
    done.destroy();
    expect(calls).toHaveLength(1);
  });
});
