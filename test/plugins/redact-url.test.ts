import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/plugins/redact-url.js';

describe('redactUrl (issue 13)', () => {
  it('masks the key parameter however its name is written', () => {
    expect(redactUrl('/v1beta/models/m:generateContent?key=sk-secret')).toBe('/v1beta/models/m:generateContent?key=[REDACTED]');
    expect(redactUrl('/v1beta/models/m:generateContent?alt=sse&%6Bey=sk-secret')).toBe('/v1beta/models/m:generateContent?alt=sse&%6Bey=[REDACTED]');
    expect(redactUrl('/x?%6b%65%79=sk-secret&b=1')).toBe('/x?%6b%65%79=[REDACTED]&b=1');
    expect(redactUrl('/x?KEY=sk-secret')).toBe('/x?KEY=[REDACTED]');
    expect(redactUrl('/x?%ZZ=1&key=sk-secret')).toBe('/x?%ZZ=1&key=[REDACTED]');
  });

  it('leaves other parameters and plain paths alone', () => {
    expect(redactUrl('/v1/models')).toBe('/v1/models');
    expect(redactUrl('/x?alt=sse&monkey=1&keys=2')).toBe('/x?alt=sse&monkey=1&keys=2');
  });
});
