import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopeForPath } from '../../src/api/envelopes.js';
import { assertEnvelope } from '../helpers/envelopes.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';

/** Issue 13 (low): errors answered before a route is known use our envelopes, not Fastify's own format. */
function rawExchange(gateway: TestGateway, text: string): Promise<string> {
  const { port } = new URL(gateway.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', () => resolve(answer));
  });
}

const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

describe('errors before routing', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it.each(['/v1/chat/completions%zz', '/v1beta/models/%', '/videoalt/v1/videos/%E0%A4%A'])('a URL that cannot be decoded (%s) is a 400 in its family envelope', async (path) => {
    const response = await fetch(gateway.url + path, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}` }, body: '{}' });
    expect(response.status).toBe(400);
    assertEnvelope(envelopeForPath(path), await response.json());
  });

  it('malformed HTTP is a 400 in the general envelope', async () => {
    const answer = await rawExchange(gateway, 'GARBAGE / NOPE\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(answer)).toEqual({ error: { message: 'The request is not valid HTTP', type: 'invalid_request_error', code: 'invalid_parameter' } });
  });

  it('headers too large are a 431 in the general envelope', async () => {
    const answer = await rawExchange(gateway, `GET /healthz HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(answer).error.code).toBe('headers_too_large');
  });
});
