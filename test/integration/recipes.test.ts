/**
 * The no-code recipes' requests, sent to the local stack the way their tools would send them
 * (the tools themselves cannot run here): Data Factory's JSON pipeline posts each month's body and
 * follows `$.pagination.nextLink` with the same body (AbsoluteUrl); its export pipeline posts the
 * month with the export media type; the Power Query query asks page after page in the query string
 * with the filters in the body. Every record of the range, exactly once.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { projectRoot } from '../../dev/project-root.js';
import { unzipSync } from 'fflate';
import { evaluate } from '../support/adf-expression.js';
import { monthRequests } from '../support/data-factory-recipe.js';
import { accessToken, identities, stack, type Envelope } from '../support/stack.js';
import { storeRecords } from '../support/store-records.js';
import { credentials as jobCredentials, runJob } from '../support/export-jobs.js';
import { readParquet } from '../support/parquet.js';
import { runJobPipeline } from '../support/job-pipeline.js';
import { createWarehouse, runDeltaPipeline, type DeltaPipelineRun } from '../support/delta-pipeline.js';
import { startOwnTenant, type OwnTenant } from '../support/own-tenant.js';
import { tempDirs } from '../support/temp-dirs.js';
import { withDuckDb } from '../support/duckdb.js';
import { QUIET_SECONDS } from '../../shared/output/result-etag.js';

async function credentials(): Promise<Record<string, string>> {
  return {
    authorization: `Bearer ${await accessToken('contoso-full')}`,
    'ocp-apim-subscription-key': identities.subscriptionKeys[0]!,
    'x-api-key': identities.apiKeys[0]!,
  };
}

describe('the Data Factory recipe against the local stack', () => {
  it('pages a year of contracts month by month, following $.pagination.nextLink with the same body: every record once', async () => {
    const headers = { ...(await credentials()), accept: 'application/json', 'content-type': 'application/json' };
    const ids: string[] = [];
    let requests = 0;
    for (const month of monthRequests('SummaryPagesToLake', { dataset: 'contracts' })) {
      // Data Factory joins the linked service's URL (ending in a slash) and the relative URL.
      let url: string | undefined = `${stack.baseUrl}/${month.relativeUrl}`;
      while (url !== undefined) {
        const response: Response = await fetch(url, { method: 'POST', headers, body: month.body });
        expect(response.status).toBe(200);
        const envelope = (await response.json()) as Envelope;
        ids.push(...envelope.data.map((record) => record.contractId as string));
        url = envelope.pagination.nextLink;
        requests += 1;
      }
    }
    const expected = (await storeRecords('contracts', 'contoso')).filter((record) => String(record.createdDate).startsWith('2025-')).map((record) => record.contractId as string);
    expect(requests).toBeGreaterThanOrEqual(12);
    expect(ids.length).toBe(expected.length);
    expect(ids.sort()).toEqual(expected.sort());
  });

  it('exports a month of invoices through the HTTP connector\'s request: a zip of the two Parquet tables', async () => {
    const [month] = monthRequests('SummaryExportsToLake', { dataset: 'invoices' });
    const lines = String(evaluate(month!.headers.value, { parameters: { dataset: 'invoices' }, activities: { GetToken: { output: { access_token: await accessToken('contoso-full') } } } })).split('\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]));
    const { authorization: _token, ...keys } = await credentials();
    const response = await fetch(`${stack.baseUrl}/${month!.relativeUrl}`, { method: 'POST', headers: { ...keys, ...headers }, body: month!.body });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect(Object.keys(unzipSync(new Uint8Array(await response.arrayBuffer()))).sort()).toEqual(['invoice_tables.parquet', 'invoices.parquet']);
  });
});

describe('the export-job recipes (Data Factory, Fabric) against a service of its own', () => {
  let own: OwnTenant;
  const lakes = tempDirs('lake');
  beforeAll(async () => {
    own = await startOwnTenant(60, { service: { exports: { queueSettings: { maxPollingIntervalMs: 200 } } } });
    // Past the quiet period of the seed: a result written seconds ago has an ETag no check matches.
    await new Promise((resolve) => setTimeout(resolve, (QUIET_SECONDS + 1) * 1000));
  });
  afterAll(async () => {
    await own?.stop();
  });

  /** The ids of the Lake's contracts, read as a folder of Parquet files (every table folder's `*.parquet`). */
  const lakeIds = (lake: string) => withDuckDb(async (query) => (await query(`SELECT contractId FROM read_parquet('${lake}/contracts/by-created/contracts/*.parquet') ORDER BY 1`)).map((row) => String(row.contractId)));
  const storedIds = async () => (await own.documents('contracts')).filter((doc) => String(doc.createdDate).startsWith('2025-')).map((doc) => String(doc.contractId)).sort();

  // The same pipeline run as Data Factory runs its template and as Fabric runs its item (job-pipeline.ts).
  it.each(['data-factory', 'fabric'] as const)('%s: lands a year in the Lake, then copies nothing when nothing changed, then exactly the month a write changed', async (engine) => {
    // Past the quiet period of the last write (the other engine's): its month would be exported again.
    await new Promise((resolve) => setTimeout(resolve, (QUIET_SECONDS + 1) * 1000));
    const lake = lakes();
    const credentials = await jobCredentials(own.service, 'contoso-full');
    const target = {
      baseUrl: `${own.service.baseUrl}/`, storageUrl: `${own.service.exports!.azurite.blobUrl}/`, lake,
      token: credentials.authorization!.slice('Bearer '.length), subscriptionKey: credentials['ocp-apim-subscription-key']!, apiKey: credentials['x-api-key']!,
    };

    const first = await runJobPipeline(target, engine);
    expect(first.started.status).toBe(202);
    expect(first.copied).toEqual(Array.from({ length: 12 }, (_, month) => `contracts/by-created/contracts/contracts-2025-${String(month + 1).padStart(2, '0')}-0.parquet`));
    expect(await lakeIds(lake)).toEqual(await storedIds());
    expect(existsSync(join(lake, 'contracts/by-created/_manifest.json'))).toBe(true);

    // Last run's manifest in ifNoneMatch: the job is complete at its kick-off, and nothing is copied.
    const second = await runJobPipeline(target, engine);
    expect([second.started.retryAfter, second.polls, second.copied]).toEqual(['0', 1, []]);
    expect(second.deleted).toEqual(['contracts/by-created/_manifest.json']);

    // A March record deleted (the first engine), one added (the second).
    // (The seed is random: March may have held one record only, deleted by the first engine.)
    const documents = await own.documents('contracts');
    const [march] = documents.filter((doc) => String(doc.createdDate).startsWith('2025-03'));
    if (engine === 'data-factory') await own.remove('contracts', [march!.id]);
    else await own.write('contracts', [{ ...documents[0], id: `recipe-${engine}`, contractId: `recipe-${engine}`, createdDate: '2025-03-20T08:00:00.000Z' }]);
    const third = await runJobPipeline(target, engine);
    expect(third.copied).toEqual(['contracts/by-created/contracts/contracts-2025-03-0.parquet']);
    expect(third.deleted).toEqual(['contracts/by-created/_manifest.json', 'contracts/by-created/contracts/contracts-2025-03-0.parquet']);
    expect(await lakeIds(lake)).toEqual(await storedIds());
  }, 120_000);

  it('Power Query\'s ReadJob: a completed manifest\'s files of a table, fetched as M builds each request, are the range\'s records', async () => {
    const query = readFileSync(join(projectRoot(), 'docs/recipes/power-query-job.pq'), 'utf8');
    const { manifest } = await runJob(own.service, 'contoso-full', 'contracts', { createdFrom: '2025-01-01', createdTo: '2025-12-31' });
    const files = manifest.files!.filter((file) => file.table === 'contracts');
    // StorageUrl is the account's address: here, the Azurite of this service.
    const storageUrl = new URL(files[0]!.url).origin;
    expect(query).toMatch(/Text\.StartsWith\(file\[url\], StorageUrl & "\/"\)/);
    const ids: string[] = [];
    for (const file of files) {
      expect(file.url.startsWith(`${storageUrl}/`)).toBe(true);
      // Uri.Parts: the path without its leading slash as RelativePath, the query as Query.
      const parts = new URL(file.url);
      const response = await fetch(`${storageUrl}/${parts.pathname.slice(1)}?${new URLSearchParams(parts.searchParams).toString()}`);
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect(bytes.byteLength).toBe(file.bytes);
      ids.push(...(await readParquet(bytes)).rows.map((row) => String(row.contractId)));
    }
    expect(ids.sort()).toEqual(await storedIds());
  });
});

describe('the Power Query recipe against the local stack', () => {
  it('walks a month by page and pageSize in the query, the filters in the body: every record once', async () => {
    // The query's own operation and month (docs/recipes/power-query.pq), with pages of 7 to walk several.
    const query = readFileSync(join(projectRoot(), 'docs/recipes/power-query.pq'), 'utf8');
    const path = /RelativePath = "(v1\/[a-z]+\/summary)"/.exec(query)![1]!;
    const month = { createdFrom: /CreatedFrom = "([\d-]+)"/.exec(query)![1]!, createdTo: /CreatedTo = "([\d-]+)"/.exec(query)![1]! };
    expect(month).toEqual({ createdFrom: '2025-01-01', createdTo: '2025-01-31' });
    const headers = { ...(await credentials()), accept: 'application/json', 'content-type': 'application/json' };
    const body = JSON.stringify(month);
    const ids: string[] = [];
    for (let page = 1; ; page += 1) {
      const response = await fetch(`${stack.baseUrl}/${path}?page=${page}&pageSize=7`, { method: 'POST', headers, body });
      const envelope = (await response.json()) as Envelope;
      expect(envelope.pagination.page).toBe(page);
      ids.push(...envelope.data.map((record) => record.contractId as string));
      if (!envelope.pagination.hasNext) break;
    }
    const expected = (await storeRecords('contracts', 'contoso')).filter((record) => String(record.createdDate).startsWith('2025-01')).map((record) => record.contractId as string);
    expect(ids.length).toBeGreaterThan(7);
    expect(ids.sort()).toEqual(expected.sort());
  });
});

describe('the delta recipe: Data Factory and Fabric keeping a warehouse table (SummaryDeltaToWarehouse)', () => {
  let own: OwnTenant;
  const warehouses = tempDirs('warehouse');
  beforeAll(async () => {
    own = await startOwnTenant(30, { service: { exports: { triggers: false } } });
  });
  afterAll(async () => {
    await own?.stop();
  });

  const ID = { contracts: 'contractId', invoices: 'invoiceId' } as const;
  /** id → what a night may change, as the warehouse table holds it. */
  const tableOf = (warehouse: string, dataset: 'contracts' | 'invoices') => withDuckDb(async (query) => Object.fromEntries((await query(
    dataset === 'contracts'
      ? 'SELECT contractId AS id, title AS changed, CAST(contractAmount AS VARCHAR) AS amount, NULL AS lines FROM dbo.contracts'
      : 'SELECT invoiceId AS id, supplierName AS changed, CAST(totalAmount AS VARCHAR) AS amount, json_array_length(lines) AS lines FROM dbo.invoices',
  )).map((row, _index, rows) => {
    // One row per id: a record upserted twice would be two rows.
    expect(new Set(rows.map((each) => each.id)).size).toBe(rows.length);
    return [String(row.id), [row.changed, row.amount, row.lines === null ? null : Number(row.lines)]];
  })), warehouse);
  /** The same of the store: contoso-full's view is every record of the tenant. */
  const storeOf = async (dataset: 'contracts' | 'invoices') => Object.fromEntries((await own.documents(dataset)).map((doc) => [String(doc[ID[dataset]]),
    [dataset === 'contracts' ? doc.title : doc.supplierName, Number(dataset === 'contracts' ? doc.contractAmount : doc.totalAmount).toFixed(2), dataset === 'contracts' ? null : (doc.lines as unknown[]).length]]));
  const tokenOf = (warehouse: string, dataset: string) => withDuckDb(async (query) => (await query(`SELECT deltaToken FROM dbo.summary_delta_state WHERE dataset = '${dataset}'`)).map((row) => String(row.deltaToken)), warehouse);

  // Both engines' pipelines run side by side, each keeping its own warehouse, night after night.
  const ENGINES = ['data-factory', 'fabric'] as const;
  type Nights = Record<(typeof ENGINES)[number], DeltaPipelineRun>;

  it.each(['contracts', 'invoices'] as const)('%s: the whole view, then a night of updates, deletes and a create applied by id, then nothing, then started again', async (dataset) => {
    const folder = warehouses();
    const warehouseOf = (engine: string) => join(folder, `${engine}.duckdb`);
    for (const engine of ENGINES) await createWarehouse(warehouseOf(engine));
    const credentials = await jobCredentials(own.service, 'contoso-full');
    const target = (engine: string, startAgain = false) => ({
      baseUrl: `${own.service.baseUrl}/`, warehouse: warehouseOf(engine), parameters: { dataset, startAgain },
      token: credentials.authorization!.slice('Bearer '.length), subscriptionKey: credentials['ocp-apim-subscription-key']!, apiKey: credentials['x-api-key']!,
    });
    /** One night of both engines; `arrive` runs where an engine asks again, and when its run ends (if it did not ask). */
    const night = async (options: { startAgain?: boolean; arrive?: (engine: string) => Promise<void> } = {}): Promise<Nights> => {
      const runs = await Promise.all(ENGINES.map((engine) => runDeltaPipeline({ ...target(engine, options.startAgain), beforeAskAgain: () => options.arrive?.(engine) ?? Promise.resolve() }, engine)
        .finally(() => options.arrive?.(engine))));
      return Object.fromEntries(ENGINES.map((engine, index) => [engine, runs[index]!])) as Nights;
    };
    const expectTables = async () => {
      const store = await storeOf(dataset);
      for (const engine of ENGINES) expect([engine, await tableOf(warehouseOf(engine), dataset)]).toEqual([engine, store]);
    };
    const tokens = async () => Promise.all(ENGINES.map((engine) => tokenOf(warehouseOf(engine), dataset)));
    const each = (runs: Nights, pick: (run: DeltaPipelineRun) => unknown) => ENGINES.map((engine) => pick(runs[engine]));

    const documents = await own.documents(dataset);
    const first = await night();
    expect(each(first, (run) => run.staged)).toEqual([documents.length, documents.length]);
    await expectTables();
    const firstTokens = (await tokens()).map(([token]) => token);
    for (const token of firstTokens) expect(token).toMatch(/^d1\.[0-9a-f]{32}\.\d+$/);

    const changed = documents.slice(0, 3).map((doc) => dataset === 'contracts' ? { ...doc, title: `night ${doc.id}` } : { ...doc, supplierName: `night ${doc.id}`, lines: (doc.lines as unknown[]).slice(0, 1) });
    const created = { ...documents[5], id: `${dataset}-warehouse-new`, [ID[dataset]]: `${dataset}-warehouse-new` };
    await own.write(dataset, [...changed, created]);
    await own.remove(dataset, documents.slice(3, 5).map((doc) => doc.id));
    const updates = await night();
    for (const staged of each(updates, (run) => run.staged)) expect(staged).toBeGreaterThanOrEqual(6);
    await expectTables();
    const nightTokens = (await tokens()).map(([token]) => token);
    expect(nightTokens.map((token, index) => token === firstTokens[index])).toEqual([false, false]);

    // Nothing changed since: past the delta's margin (QUIET_SECONDS) a night stages no row, asks
    // once more, and keeps the new token, so an unchanged table's token never grows old.
    await new Promise((resolve) => setTimeout(resolve, (QUIET_SECONDS + 1) * 1000));
    await night();
    const quiet = await night();
    expect(each(quiet, (run) => [run.staged, run.askedAgain])).toEqual([[0, true], [0, true]]);
    await expectTables();
    const renewed = await tokens();
    for (const [index, kept] of renewed.entries()) {
      expect(kept).toHaveLength(1);
      expect(kept[0]).not.toBe(nightTokens[index]);
      expect(kept[0]).toMatch(/^d1\.[0-9a-f]{32}\.\d+$/);
    }

    // A write between the night's Copy and its asking again: that answer has a row, so the token
    // it gives is not kept (the row would be skipped); the next night stages the write. Both
    // engines' Copies end before the one write, and both ask again after it (an engine that
    // does not ask again counts as arrived when its run ends, so the other is not kept waiting).
    const between = { ...created, id: `${dataset}-between`, [ID[dataset]]: `${dataset}-between` };
    const arrived = new Set<string>();
    let written: () => void = () => undefined;
    const afterWrite = new Promise<void>((resolve) => { written = resolve; });
    const racing = await night({
      arrive: async (engine) => {
        if (arrived.has(engine)) return;
        arrived.add(engine);
        if (arrived.size === ENGINES.length) {
          await own.write(dataset, [between]);
          written();
        }
        await afterWrite;
      },
    });
    expect(each(racing, (run) => [run.staged, run.askedAgain])).toEqual([[0, true], [0, true]]);
    expect(await tokens()).toEqual(renewed);
    const caught = await night();
    for (const staged of each(caught, (run) => run.staged)) expect(staged).toBeGreaterThanOrEqual(1);
    await expectTables();

    // startAgain (after a DELTA_TOKEN_EXPIRED or DELTA_VIEW_CHANGED): the table emptied, the whole view.
    const again = await night({ startAgain: true });
    const count = (await own.documents(dataset)).length;
    expect(each(again, (run) => run.staged)).toEqual([count, count]);
    await expectTables();
  }, 120_000);
});
