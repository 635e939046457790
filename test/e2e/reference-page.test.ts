import { readFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { checkServerIdentity as checkIdentity, type PeerCertificate } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import chromium from '@sparticuz/chromium';
import { chromium as playwright, type Browser, type BrowserContext } from 'playwright-core';
import { ERROR_CODES } from '../../shared/errors/error-codes.js';
import { identities, stack } from '../support/stack.js';

// The API reference `npm start` serves at /docs, rendered by a real headless Chromium (shipped
// inside the @sparticuz/chromium npm package, so `npm test` needs no system browser).
const reference = new URL('/docs', stack.baseUrl).href;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  browser = await playwright.launch({ executablePath: await chromium.executablePath(), args: chromium.args, headless: true });
  // This Chromium runs as one process, which ends with its last context: the tests share one.
  // The page is https with a certificate from the stack's local CA, which this throwaway browser
  // profile has not imported (a developer trusts .local/ca.pem once, or proceeds past the warning).
  context = await browser.newContext({ viewport: { width: 1280, height: 1000 }, ignoreHTTPSErrors: true });
  await context.newPage();
});

afterAll(async () => {
  await browser?.close();
});

describe('the API reference at /docs', () => {
  it('shows both operations, the three credentials and the error table, with no request leaving loopback', async () => {
    const page = await context.newPage();
    // The page renders under its Content-Security-Policy: nothing it needs is refused.
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    const requested: string[] = [];
    await page.route('**/*', async (route) => {
      const url = new URL(route.request().url());
      requested.push(url.href);
      // Anything off loopback is refused (and fails the test below), so the page cannot reach out.
      if (url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.protocol === 'data:') await route.continue();
      else await route.abort();
    });
    await page.goto(reference);
    await page.getByText('/v1/invoices/summary').first().waitFor({ timeout: 20_000 });
    const text = await page.locator('body').innerText();
    for (const operation of ['/v1/contracts/summary', '/v1/invoices/summary']) expect(text).toContain(operation);
    for (const credential of ['Authorization: Bearer', 'Ocp-Apim-Subscription-Key', 'x-api-key']) expect(text).toContain(credential);
    for (const code of Object.keys(ERROR_CODES)) expect(text).toContain(code);
    // The table is rendered as a table, not left as Markdown text.
    expect(await page.locator('table td', { hasText: 'RESULT_TOO_LARGE' }).count()).toBeGreaterThan(0);
    expect(requested.some((url) => url.endsWith('/docs/openapi.json'))).toBe(true);
    expect(requested.filter((url) => !/^https:\/\/(127\.0\.0\.1|localhost)[:/]/.test(url) && !url.startsWith('data:'))).toEqual([]);
    expect(refused).toEqual([]);
    // `REFERENCE_SCREENSHOT=docs/api-reference.png` refreshes the README's picture.
    if (process.env.REFERENCE_SCREENSHOT) writeFileSync(process.env.REFERENCE_SCREENSHOT, await page.screenshot({ fullPage: true }));
    await page.close();
  });

  it('authorizes with the dev client and executes a call from the page: 200 JSON, then a Parquet download, under its CSP', async () => {
    const page = await context.newPage();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to connect/i.test(message.text())) refused.push(message.text());
    });
    const calls: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') calls.push(new URL(request.url()).pathname);
    });
    await page.goto(reference);
    await page.locator('button.authorize').first().click();
    // The client credentials of the dev client are filled in; its Authorize gets a token through the relay.
    const oauth = page.locator('.modal-ux .auth-container', { hasText: 'clientCredentials' });
    await oauth.locator('button.authorize').click();
    await oauth.getByText('Authorized').first().waitFor({ timeout: 20_000 });
    await page.locator('.modal-ux button.btn-done').first().click();
    const operation = page.locator('.opblock-post', { hasText: '/v1/contracts/summary' }).first();
    await operation.locator('.opblock-summary').first().click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor({ timeout: 20_000 });
    expect((await status.innerText()).trim()).toBe('200');
    expect(await operation.locator('.live-responses-table').innerText()).toContain('"pagination"');
    // The same filters as Parquet, without the page members an export refuses: the page offers the file.
    await operation.locator('.responses-wrapper select').first().selectOption('application/vnd.apache.parquet');
    await operation.locator('textarea.body-param__text').fill('{"createdFrom": "2025-01-01", "createdTo": "2025-01-31"}');
    await operation.locator('button.execute').click();
    await operation.locator('.live-responses-table a', { hasText: /download/i }).first().waitFor({ timeout: 20_000 });
    expect((await operation.locator('.live-responses-table tbody .response-col_status').first().innerText()).trim()).toBe('200');
    expect(calls).toEqual(expect.arrayContaining(['/docs/token', '/api/v1/contracts/summary']));
    expect(refused).toEqual([]);
    await page.close();
  });

  it('serves the document for this stack only: its own origin, its token relay and scope, a pasted token as a second way in', async () => {
    const served = (await (await fetch(new URL('/docs/openapi.json', stack.baseUrl))).json()) as { servers: { variables: { base_url: { default: string } } }[]; components: { securitySchemes: Record<string, { flows?: { clientCredentials: { tokenUrl: string; scopes: Record<string, string> } }; scheme?: string }> } };
    const origin = new URL(stack.baseUrl).origin;
    expect(served.servers[0]!.variables.base_url.default).toBe(`${origin}/api`);
    expect(served.components.securitySchemes.accessToken!.flows!.clientCredentials.tokenUrl).toBe(`${origin}/docs/token`);
    expect(Object.keys(served.components.securitySchemes.accessToken!.flows!.clientCredentials.scopes)).toEqual([`api://${identities.appId}/.default`]);
    expect(served.components.securitySchemes.pastedToken!.scheme).toBe('bearer');
    // The committed document (what API Management's portal shows) names no local URL.
    const committed = readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8');
    expect(committed).not.toMatch(/127\.0\.0\.1:\d|localhost:\d|\/docs\/token/);
    // The relay passes form token requests to the identity provider, and nothing else.
    const client = identities.clients.find((candidate) => candidate.name === 'contoso-full')!;
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret, scope: `api://${identities.appId}/.default` });
    const token = await fetch(new URL('/docs/token', stack.baseUrl), { method: 'POST', body: form });
    expect(token.status).toBe(200);
    expect(((await token.json()) as { access_token?: string }).access_token).toMatch(/^ey/);
    expect((await fetch(new URL('/docs/token', stack.baseUrl), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(415);
    // Served to this machine's names only: a rebound name gets neither the filled-in page nor tokens.
    const rebound = await new Promise<number>((resolve, reject) => {
      const url = new URL('/docs/token', stack.baseUrl);
      // The certificate is checked against the address dialled, not the forged Host.
      const checkServerIdentity = (_host: string, certificate: PeerCertificate) => checkIdentity(url.hostname, certificate);
      const request = httpsRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', checkServerIdentity, headers: { host: 'attacker.example', 'content-type': 'application/x-www-form-urlencoded' } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      request.end(form.toString());
    });
    expect(rebound).toBe(421);
  });

  it('is served with a Content-Security-Policy (own files only, never framed) and no referrer', async () => {
    const response = await fetch(reference);
    expect(response.headers.get('content-security-policy')).toMatch(/script-src 'self';.*frame-ancestors 'none'/);
    expect(response.headers.get('content-security-policy')).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('is served only for GET and HEAD; anything else under /docs goes to the gateway (401 without a key)', async () => {
    expect((await fetch(reference, { method: 'HEAD' })).status).toBe(200);
    const spec = await fetch(new URL('/docs/openapi.json', stack.baseUrl));
    expect(spec.headers.get('content-type')).toBe('application/json');
    expect(((await spec.json()) as { openapi: string }).openapi).toBe('3.1.0');
    expect((await fetch(reference, { method: 'POST' })).status).toBe(401);
    expect((await fetch(new URL('/docs/../package.json', stack.baseUrl))).status).not.toBe(200);
  });
});
