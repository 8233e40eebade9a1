import { expect } from 'vitest';
import type { EnvelopeKind } from '../../src/api/envelopes.js';

/** Asserts an error body has exactly the shape of its family's envelope (spec "Error body shapes"). */
export function assertEnvelope(kind: EnvelopeKind, body: unknown): void {
  const record = body as Record<string, unknown> & { error?: Record<string, unknown> };
  switch (kind) {
    case 'general':
      expect(record.error).toEqual({ message: expect.any(String), type: expect.any(String), code: expect.any(String) });
      break;
    case 'openai':
      expect(record.error).toEqual({ message: expect.any(String), type: expect.any(String), param: expect.toSatisfy((p: unknown) => p === null || typeof p === 'string'), code: expect.any(String) });
      break;
    case 'chat':
      expect(record.error).toEqual({ code: expect.any(String), message: expect.any(String) });
      break;
    case 'google':
      expect(record.error).toEqual({ code: expect.any(Number), message: expect.any(String), status: expect.any(String) });
      break;
    case 'anthropic':
      expect(record).toEqual({ type: 'error', error: { type: expect.any(String), message: expect.any(String) }, request_id: expect.any(String) });
      break;
    case 'kling':
      expect(record).toEqual({ code: expect.any(Number), message: expect.any(String), request_id: expect.any(String) });
      break;
  }
}
