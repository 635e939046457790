import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import chromium from '@sparticuz/chromium';
import { chromium as playwright, type Browser } from 'playwright-core';
import { ERROR_CODES } from '../../shared/errors/error-codes.js';
import { stack } from '../support/stack.js';

// The API reference `npm start` serves at /docs, rendered by a real headless Chromium (shipped
// inside the @sparticuz/chromium npm package, so `npm test` needs no system browser).
const reference = new URL('/docs', stack.baseUrl).href;
let browser: Browser;

beforeAll(async () => {
  browser = await playwright.launch({ executablePath: await chromium.executablePath(), args: chromium.args, headless: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('the API reference at /docs', () => {
  it('shows both operations, the three credentials and the error table, with no request leaving loopback', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
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
    expect(requested.filter((url) => !/^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(url) && !url.startsWith('data:'))).toEqual([]);
    expect(refused).toEqual([]);
    // `REFERENCE_SCREENSHOT=docs/api-reference.png` refreshes the README's picture.
    if (process.env.REFERENCE_SCREENSHOT) writeFileSync(process.env.REFERENCE_SCREENSHOT, await page.screenshot({ fullPage: true }));
    await page.close();
  }, 60_000);

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
