import { describe, expect, it } from 'vitest';
import { buildChannelRedactor, redactBody } from '../../src/gateway/channel-redactor.js';
import { sanitizeUpstreamMessage } from '../../src/providers/upstream-errors.js';

describe('redaction by value (issue 34)', () => {
  const redact = buildChannelRedactor({ secrets: ['vllm-token-Q7r2x9', 'vllm-token-Q7r2x9-long-suffix', 'abc', undefined, 'hdr-value-1234'], baseUrl: 'http://gpu-7.corp.internal:8000/v1' });

  it('removes every credential and the host (with and without its port), longest first, whatever the case', () => {
    const text = 'token vllm-token-Q7r2x9-long-suffix and VLLM-TOKEN-Q7R2X9 at gpu-7.corp.internal:8000 (gpu-7.corp.internal), header hdr-value-1234';
    expect(redact(text)).toBe('token [redacted] and [redacted] at [redacted] ([redacted]), header [redacted]');
    // Values too short to be credentials are not matched (they would eat ordinary words).
    expect(redact('abc def')).toBe('abc def');
  });

  it('walks an error body before the translator reads it, and an IPv6 base_url is redacted without brackets too', () => {
    const v6 = buildChannelRedactor({ secrets: [], baseUrl: 'http://[fd00::5]:9000' });
    expect(redactBody({ error: { message: 'at fd00::5 and [fd00::5]:9000', list: ['fd00::5', 3] } }, v6)).toEqual({ error: { message: 'at [redacted] and [redacted]', list: ['[redacted]', 3] } });
  });

  it('the pattern rules also take IPv6 addresses, file paths and JSON Web Tokens', () => {
    const message = sanitizeUpstreamMessage('node fe80::1ff:fe23:4567:890a via [2001:db8::7]:8000 read /srv/models/llama/weights.bin with eyJhbGciOi.eyJpc3MiOi.c2lnbmF0dXJl at 12:30:45 in std::vector and ::1');
    expect(message).not.toMatch(/fe80|2001:db8|\/srv|eyJ/);
    expect(message).toContain('12:30:45 in std::vector and [host]');
  });

  it('removes a credential holding quotes and backslashes JSON-escaped, URL-encoded and in base64 too (issue 44)', () => {
    const secret = 'vllm-"tok\\en-Q7r2';
    const quoted = buildChannelRedactor({ secrets: [secret], baseUrl: undefined });
    const forms = [JSON.stringify({ key: secret }), encodeURIComponent(secret), Buffer.from(`user:${secret}`).toString('base64')];
    expect(forms.map(quoted)).toEqual(['{"key":"[redacted]"}', '[redacted]', '[redacted]']);
  });
});
