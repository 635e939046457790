import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';

// `@azure/functions` is a CommonJS bundle: the compiled ESM output must load under plain Node
// (as the Functions host loads `main`), not only under jest's transform.
const root = new URL('../../', import.meta.url);
const settings = (JSON.parse(readFileSync(new URL('local.settings.example.json', root), 'utf8')) as { Values: Record<string, string> }).Values;
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { main: string; type: string };

// What the Node.js worker does at start-up, in a fresh process: it provides the built-in module
// `@azure/functions-core` by intercepting require (that is how `app.http` reaches the host), then
// resolves package.json `main` (a glob) and imports every match. Each `registerFunction` call is
// the metadata the host receives: name and bindings (trigger type, route, methods, auth level).
const probe = `
  import Module from 'node:module';
  import { readdirSync, readFileSync } from 'node:fs';
  import { dirname, join, basename } from 'node:path';
  import { pathToFileURL } from 'node:url';

  const registered = [];
  const coreApi = {
    version: 'probe',
    hostVersion: 'probe',
    setProgrammingModel() {},
    getProgrammingModel() { return undefined; },
    registerHook() { return { dispose() {} }; },
    registerFunction(metadata, callback) {
      registered.push({ metadata, callback: typeof callback });
      return { dispose() {} };
    },
    log() {},
    Disposable: class { dispose() {} },
  };
  Module.prototype.require = new Proxy(Module.prototype.require, {
    apply(target, self, args) {
      return args[0] === '@azure/functions-core' ? coreApi : Reflect.apply(target, self, args);
    },
  });

  const main = JSON.parse(readFileSync('package.json', 'utf8')).main;
  const folder = dirname(main);
  const pattern = new RegExp('^' + basename(main).split('*').map((part) => part.replace(/[.+?^$()|[\\]\\\\{}]/g, '\\\\$&')).join('[^/]*') + '$');
  const files = readdirSync(folder).filter((name) => pattern.test(name)).sort();
  for (const file of files) await import(pathToFileURL(join(process.cwd(), folder, file)).href);
  console.log(JSON.stringify({ files, registered }));
`;

interface Registration {
  metadata: { name: string; bindings: Record<string, { type: string; direction: string; route?: string; methods?: string[]; authLevel?: string; queueName?: string; connection?: string; schedule?: string }> };
  callback: string;
}

async function loadLikeTheHost(extraEnv: Record<string, string> = {}, cwd: URL = root): Promise<{ files: string[]; registered: Registration[] }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', probe], {
    cwd,
    env: { PATH: process.env.PATH, ...settings, ...extraEnv },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { files: string[]; registered: Registration[] };
}

describe('the compiled function files', () => {
  it('load from package.json main the way the host does, registering every operation (route, methods, function auth level), the deltas and the export jobs\' triggers', async () => {
    const { files, registered } = await loadLikeTheHost();
    expect(files).toEqual(['export-jobs.js', 'summary-operations.js']);
    const triggers = registered.map(({ metadata, callback }) => {
      const [trigger, ...others] = Object.values(metadata.bindings).filter((binding) => binding.direction === 'in');
      expect(others).toEqual([]);
      const { type, route, methods, authLevel, queueName, connection, schedule } = trigger!;
      return { name: metadata.name, type, route, methods, authLevel, queueName, connection, schedule, callback };
    });
    const http = (name: string, route: string, method: string) => ({ name, type: 'httpTrigger', route, methods: [method], authLevel: 'function', callback: 'function' });
    expect(triggers).toEqual([
      http('contractsExport', 'v1/contracts/exports', 'POST'),
      http('invoicesExport', 'v1/invoices/exports', 'POST'),
      http('exportStatus', 'v1/exports/{id}', 'GET'),
      // Deltas keep their tokens in the export storage: registered where it is.
      http('contractsDelta', 'v1/contracts/delta', 'POST'),
      http('invoicesDelta', 'v1/invoices/delta', 'POST'),
      http('cancelExport', 'v1/exports/{id}', 'DELETE'),
      // Identity-based: the connection's settings are EXPORTS_STORAGE__queueServiceUri (and the managed identity).
      { name: 'exportWindow', type: 'queueTrigger', queueName: 'export-windows', connection: 'EXPORTS_STORAGE', callback: 'function' },
      { name: 'exportWindowFailed', type: 'queueTrigger', queueName: 'export-windows-poison', connection: 'EXPORTS_STORAGE', callback: 'function' },
      { name: 'exportSweep', type: 'timerTrigger', schedule: '0 */15 * * * *', callback: 'function' },
      http('contractsSummary', 'v1/contracts/summary', 'POST'),
      http('invoicesSummary', 'v1/invoices/summary', 'POST'),
    ].map((expected) => ({ route: undefined, methods: undefined, authLevel: undefined, queueName: undefined, connection: undefined, schedule: undefined, ...expected })));
    for (const { metadata } of registered) {
      const outputs = Object.values(metadata.bindings).filter((binding) => binding.direction === 'out').map((binding) => binding.type);
      expect([metadata.name, outputs]).toEqual([metadata.name, Object.values(metadata.bindings).some((binding) => binding.type === 'httpTrigger') ? ['http'] : []]);
    }
  });

  it('register no export job and no delta where no export storage is configured', async () => {
    const { registered } = await loadLikeTheHost({ EXPORTS_STORAGE__blobServiceUri: '', EXPORTS_STORAGE__queueServiceUri: '', EXPORTS_STORAGE__tenantId: '', EXPORTS_STORAGE__clientId: '', EXPORTS_STORAGE__clientSecret: '' });
    expect(registered.map(({ metadata }) => metadata.name)).toEqual(['contractsSummary', 'invoicesSummary']);
  });

  it('stop start-up with a message naming a bad setting', async () => {
    const failure = await loadLikeTheHost({ MAX_PAGE_SIZE: 'lots' }).catch((error: { stderr: string }) => error);
    expect('stderr' in failure ? failure.stderr : '').toContain('MAX_PAGE_SIZE');
  });

  it('are what package.json main points at, as ES modules', () => {
    expect(pkg.main).toBe('dist/functions/*.js');
    expect(pkg.type).toBe('module');
  });

  it('are in the deploy artifact (npm run package) too, registering the same operations from one bundle', async () => {
    const fromDist = await loadLikeTheHost();
    const fromArtifact = await loadLikeTheHost({}, new URL('package/', root));
    expect(fromArtifact.files).toEqual(['export-jobs.js', 'summary-operations.js']);
    expect(fromArtifact.registered).toEqual(fromDist.registered);
    expect(JSON.parse(readFileSync(new URL('package/package.json', root), 'utf8'))).toMatchObject({ type: 'module', main: 'dist/functions/*.js' });
  });
});
