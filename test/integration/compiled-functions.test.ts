import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';

// `@azure/functions` is a CommonJS bundle: the compiled ESM output must load under plain Node
// (as the Functions host loads `main`), not only under jest's transform.
const root = new URL('../../', import.meta.url);
const settings = (JSON.parse(readFileSync(new URL('local.settings.example.json', root), 'utf8')) as { Values: Record<string, string> }).Values;

const probe = `
  const c = await import('./dist/functions/contracts-summary.js');
  const i = await import('./dist/functions/invoices-summary.js');
  const pick = (o) => ({ route: o.route, methods: o.methods, authLevel: o.authLevel, handler: typeof o.handler });
  console.log(JSON.stringify([pick(c.contractsSummary), pick(i.invoicesSummary)]));
`;

describe('the compiled function files', () => {
  it('load under plain Node with their routes, POST only and function auth level', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', probe], {
      cwd: root,
      env: { PATH: process.env.PATH, ...settings },
    });
    const registrations = JSON.parse(stdout.trim().split('\n').at(-1)!) as unknown[];
    expect(registrations).toEqual([
      { route: 'v1/contracts/summary', methods: ['POST'], authLevel: 'function', handler: 'function' },
      { route: 'v1/invoices/summary', methods: ['POST'], authLevel: 'function', handler: 'function' },
    ]);
  });

  it('stop start-up with a message naming a bad setting', async () => {
    const failure = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', probe], {
      cwd: root,
      env: { PATH: process.env.PATH, ...settings, MAX_PAGE_SIZE: 'lots' },
    }).catch((error: { stderr: string }) => error);
    expect('stderr' in failure ? failure.stderr : '').toContain('MAX_PAGE_SIZE');
  });

  it('points package.json main at the compiled function files', () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { main: string };
    expect(pkg.main).toBe('dist/functions/*.js');
  });
});
