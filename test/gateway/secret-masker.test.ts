import { describe, expect, it } from 'vitest';
import { compileMasker, maskDeep } from '../../src/gateway/secret-masker.js';
import { buildChannelRedactor } from '../../src/gateway/channel-redactor.js';
import { MintedSecrets, MintedTokenCache, mintedSecrets } from '../../src/providers/minted-token.js';

const SECRET = 'q"uo\\te/s p-Zx81é';
const LONG = `eyJhbGciOiJSUzI1NiJ9.${'x'.repeat(200)}.sig-Qm3`;

/** base64 of the secret inside a longer base64 text, at each byte alignment. */
const base64Around = (secret: string) => [0, 1, 2].map((offset) => Buffer.from(`${'u'.repeat(offset + 3)}:${secret}!`).toString('base64'));

/** Every encoding an upstream might echo a value in. */
function encodings(secret: string): Record<string, string> {
  const json = JSON.stringify(secret).slice(1, -1);
  return {
    raw: secret,
    upper: secret.toUpperCase(),
    json,
    'json twice': JSON.stringify(json).slice(1, -1),
    'json, slash escaped': json.replace(/\//g, '\\/'),
    'json, ascii only': json.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    'uri component': encodeURIComponent(secret),
    'form (+ for space)': new URLSearchParams({ v: secret }).toString().slice(2),
    'html attribute': secret.replace(/&/g, '&amp;').replace(/"/g, '&quot;'),
    base64: Buffer.from(secret).toString('base64'),
    base64url: Buffer.from(secret).toString('base64url'),
    'basic header': `Basic ${Buffer.from(`user:${secret}`).toString('base64')}`,
    ...Object.fromEntries(base64Around(secret).map((text, i) => [`base64 at alignment ${i}`, text])),
  };
}

describe('one masker for every upstream secret, in every encoding (issue 44)', () => {
  const mask = compileMasker([SECRET, LONG, 'short', undefined]);

  it.each(Object.entries(encodings(SECRET)))('masks the secret %s', (_, form) => {
    const masked = mask(`before ${form} after`);
    expect(masked).toBe(`before ${form.startsWith('Basic ') ? 'Basic ' : ''}[redacted] after`);
  });

  it.each(Object.entries(encodings(LONG)).filter(([name]) => name !== 'upper' && name !== 'html attribute'))('masks a long token (searched as strings) %s', (_, form) => {
    expect(mask(`before ${form} after`)).toBe(`before ${form.startsWith('Basic ') ? 'Basic ' : ''}[redacted] after`);
  });

  it('keeps JSON text JSON, leaves short values and ordinary text alone', () => {
    const text = JSON.stringify({ headers: { authorization: `Bearer ${SECRET}`, other: 'short words stay' } });
    expect(JSON.parse(mask(text))).toEqual({ headers: { authorization: 'Bearer [redacted]', other: 'short words stay' } });
    expect(mask('nothing secret here: quo te, Zx81')).toBe('nothing secret here: quo te, Zx81');
  });

  it('masks the credential of a header-shaped value and of a Basic pair on its own', () => {
    const header = compileMasker([`Basic ${Buffer.from('robot:pa55word-9').toString('base64')}`, 'Bearer tok-abcdef-123']);
    expect(header('the password pa55word-9, the pair robot:pa55word-9, the token tok-abcdef-123')).toBe('the password [redacted], the pair [redacted], the token [redacted]');
  });

  it('walks a parsed answer, keys included', () => {
    expect(maskDeep({ [SECRET]: [SECRET, 3, { text: `x ${JSON.stringify(SECRET)} y` }] }, mask)).toEqual({ '[redacted]': ['[redacted]', 3, { text: 'x "[redacted]" y' }] });
  });
});

describe('minted tokens are masked by every channel redactor, and recompiled only when they change (issue 44)', () => {
  it('a token minted after the channel was built is masked, in JSON-escaped and base64 forms too', async () => {
    const minted = new MintedSecrets();
    let now = 1_000;
    const redact = buildChannelRedactor({ secrets: ['api-key-123456'], baseUrl: 'http://upstream.internal:9000' }, minted, () => now);
    const token = `ya29.${'t'.repeat(40)}"q`;
    expect(redact(`got ${token}`)).toBe(`got ${token}`);
    minted.add([token], now + 60_000, now);
    expect(redact(`got ${token} and ${JSON.stringify(token)} and ${Buffer.from(token).toString('base64')}, key api-key-123456`)).toBe('got [redacted] and "[redacted]" and [redacted], key [redacted]');
    // Once expired it leaves the set (a new version) and the masker is compiled without it.
    now += 120_000;
    expect(minted.values(now)).toEqual([]);
  });

  it('a cache reports what it mints, AWS-style key sets field by field', async () => {
    const before = new Set(mintedSecrets.values(0));
    const cache = new MintedTokenCache<{ accessKeyId: string; secretAccessKey: string; sessionToken: string }>();
    const keys = { accessKeyId: 'ASIAEXAMPLE123', secretAccessKey: 'secret/Key+Example', sessionToken: 'session-token-Example' };
    await cache.tokenFor(['role'], 0, async () => ({ token: keys, expiresAtMs: 3_600_000 }));
    expect(mintedSecrets.values(0).filter((value) => !before.has(value)).sort()).toEqual(Object.values(keys).sort());
  });
});

describe('a hostile text costs no backtracking (issue 44)', () => {
  it('a long run of backslashes and quotes against secrets that start with them', () => {
    const mask = compileMasker(['\\"lead-secret-1', '"\\quote-secret-2']);
    const text = `${'\\'.repeat(200_000)}${'"'.repeat(200_000)}\\"lead-secret-1`;
    // Linear: a quadratic pattern would take minutes on this text.
    expect(mask(text).endsWith('[redacted]')).toBe(true);
  });
});
