/**
 * The no-code recipes' requests, sent to the local stack the way their tools would send them
 * (the tools themselves cannot run here): Data Factory's JSON pipeline posts each month's body and
 * follows `$.pagination.nextLink` with the same body (AbsoluteUrl); its export pipeline posts the
 * month with the export media type; the Power Query query asks page after page in the query string
 * with the filters in the body. Every record of the range, exactly once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { projectRoot } from '../../dev/project-root.js';
import { unzipSync } from 'fflate';
import { evaluate } from '../support/adf-expression.js';
import { monthRequests } from '../support/data-factory-recipe.js';
import { accessToken, identities, stack, type Envelope } from '../support/stack.js';
import { storeRecords } from '../support/store-records.js';

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
