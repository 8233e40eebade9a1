import { createServer, type Server } from 'node:http';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { admin } from '../helpers/admin.js';
import { consoleCall, inviteUser } from '../helpers/console.js';
import { findChromium, launchOptions } from '../helpers/chromium.js';

/**
 * Issue 23 item 6: login CSRF in a real browser (findChromium's, through playwright-core). A page
 * on another site posts a `text/plain` form whose body is JSON (the `=` of `name=value` hidden in a
 * password) to the console's sign-in and invitation routes; the browser must not end up signed in
 * as the attacker. The gateway listens on 127.0.0.1, the attacker on `localhost`: another site.
 */
const CHROMIUM = await findChromium();
const ATTACKER_PASSWORD = 'attacker-pass=word-123';

/** An auto-submitting form whose text/plain body reads `<name>=<value>`: here, one JSON object. */
const formPage = (action: string, json: string): string => {
  const cut = json.indexOf('=');
  const name = json.slice(0, cut).replace(/'/g, '&#39;');
  const value = json.slice(cut + 1).replace(/'/g, '&#39;');
  return `<!doctype html><html><body><form method="POST" enctype="text/plain" action="${action}"><input type="hidden" name='${name}' value='${value}'></form>
<script>document.forms[0].submit()</script></body></html>`;
};

describe.skipIf('missing' in CHROMIUM)('login CSRF in a browser (issue 23)', { timeout: 60_000 }, () => {
  let gateway: TestGateway;
  let browser: Browser;
  let attackerSite: Server;
  let attackerOrigin: string;
  const pages = new Map<string, string>();

  beforeAll(async () => {
    if ('missing' in CHROMIUM) throw new Error(CHROMIUM.missing);
    gateway = await startTestGateway();
    expect(new URL(gateway.url).hostname).toBe('127.0.0.1');
    attackerSite = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(pages.get(req.url ?? '') ?? 'nothing here');
    });
    await new Promise<void>((resolve) => attackerSite.listen(0, '127.0.0.1', () => resolve()));
    attackerOrigin = `http://localhost:${(attackerSite.address() as { port: number }).port}`;
    browser = await chromium.launch(launchOptions(CHROMIUM));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    attackerSite?.close();
    await gateway?.stop();
  });

  /** A victim's fresh browser visits the attacker's page; returns the gateway session the browser holds afterwards, if any. */
  const visit = async (path: string) => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      // The form leaves the attacker's page for the gateway: wait for that navigation to finish.
      await Promise.all([page.waitForURL((url) => url.origin === gateway.url, { timeout: 15_000 }), page.goto(attackerOrigin + path)]);
      await page.waitForLoadState('load');
      const cookies = await context.cookies(gateway.url);
      // The victim then opens the console: who does the gateway think they are?
      const current = await page.goto(`${gateway.url}/console/api/session`);
      return { cookie: cookies.find((c) => c.name === 'gw_session'), status: current?.status(), body: await current?.text() };
    } finally {
      await context.close();
    }
  };

  it('a cross-site text/plain form cannot sign the browser in as the attacker', async () => {
    const attacker = await inviteUser(gateway, { name: 'Mallory' }, ATTACKER_PASSWORD);
    // The same body posted as the API expects it signs in: the credentials are right.
    expect((await consoleCall(gateway, 'POST', '/console/api/session', { email: attacker.email, password: ATTACKER_PASSWORD })).status).toBe(200);

    pages.set('/sign-in', formPage(`${gateway.url}/console/api/session`, JSON.stringify({ email: attacker.email, password: ATTACKER_PASSWORD })));
    const after = await visit('/sign-in');
    expect(after.cookie).toBeUndefined();
    expect(after.status).toBe(401);
    expect(after.body).not.toContain(attacker.email);
  });

  it('nor can a cross-site form accept an invitation (the attacker\'s own) in the victim\'s browser', async () => {
    const created = await admin(gateway, 'POST', '/users', { name: 'Mallory two', email: `mallory-${Date.now()}@example.org` });
    expect(created.status, created.text).toBe(201);
    pages.set('/accept', formPage(`${gateway.url}/console/api/invite/accept`, JSON.stringify({ token: created.json.invite_token, password: ATTACKER_PASSWORD })));
    const after = await visit('/accept');
    expect(after.cookie).toBeUndefined();
    expect(after.status).toBe(401);
    // The invitation was not used up by the refused form.
    const accepted = await consoleCall(gateway, 'POST', '/console/api/invite/accept', { token: created.json.invite_token, password: 'the real owner chooses' });
    expect(accepted.status, accepted.text).toBe(200);
  });
});
