import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

/** The console's web app is served by the gateway itself at /console (issue 12; built by `npm run build`). */
describe('console web app', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it('answers the app for /console and every client-side route, with a CSP and no caching of the HTML', async () => {
    for (const path of ['/console', '/console/token', '/console/usage?from=2026-01-01']) {
      const page = await fetch(gateway.url + path);
      expect(page.status, path).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.headers.get('cache-control')).toBe('no-cache');
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
      const html = await page.text();
      expect(html).toMatch(/<script type="module"[^>]* src="\/console\/assets\/[^"]+\.js"/);
      expect(html).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
    }
  });

  it('serves hashed assets for good, and never the app for an API path or a missing asset', async () => {
    const html = await (await fetch(`${gateway.url}/console`)).text();
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const asset = await fetch(gateway.url + script);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${gateway.url}/console/assets/gone-1234.js`)).status).toBe(404);
    const api = await fetch(`${gateway.url}/console/api/no-such-thing`);
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toMatch(/json/);
    expect((await fetch(`${gateway.url}/console/..%2f..%2fpackage.json`)).headers.get('content-type')).toMatch(/^text\/html/);
  });
});
