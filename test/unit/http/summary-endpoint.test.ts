import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../../shared/config/load-config.js';
import { createSummaryDeps } from '../../../shared/app/create-summary-deps.js';
import { summaryEndpoint } from '../../../shared/http/summary-endpoint.js';
import { CONTRACTS } from '../../../shared/model/contracts.js';
import { INVOICES } from '../../../shared/model/invoices.js';

// Settings that build the production collaborators without reaching anything: no store or
// identity provider is contacted until a request needs one, and none is made here.
const deps = createSummaryDeps(loadConfig({
  AUTH_AUTHORITY_HOST: 'https://127.0.0.1:9',
  AUTH_TENANT_ID: '00000000-0000-0000-0000-000000000001',
  AUTH_APP_ID: '00000000-0000-0000-0000-000000000002',
  API_KEYS: 'dev-api-key-0000000000000000',
  CLIENT_REGISTRY: JSON.stringify({ '00000000-0000-0000-0000-000000000003': 'contoso' }),
  COSMOS_ENDPOINT: 'https://127.0.0.1:9',
}));

describe('a summary endpoint', () => {
  it('names its operation one way, derived from the resource', () => {
    expect(summaryEndpoint(INVOICES, deps).names).toEqual({
      id: 'invoicesSummary', path: '/v1/invoices/summary', route: 'v1/invoices/summary', logName: 'invoices.summary', spanName: 'POST /v1/invoices/summary',
    });
  });

  it('offers JSON and the resource\'s export media types, and accepts its filters and the control members', () => {
    const endpoint = summaryEndpoint(INVOICES, deps);
    expect(endpoint.offers.map((offer) => `${offer.format} ${offer.mediaType}`)).toEqual(['json application/json', 'parquet application/vnd.apache.parquet', 'parquet application/zip']);
    expect(Object.keys(endpoint.members)).toEqual(expect.arrayContaining(['contractId', 'createdFrom', 'createdTo', 'orderBy', 'order', 'page', 'pageSize']));
  });

  it('prepares a role set\'s view once, and never gives one role set\'s view to another', () => {
    const endpoint = summaryEndpoint(CONTRACTS, deps);
    const full = endpoint.prepare(['Data.Read', 'Data.Read.Financials']);
    expect(endpoint.prepare(['Data.Read', 'Data.Read.Financials'])).toBe(full);
    expect(full.cleaning.view).toBe(full.view);
    expect(full.view.fields.map((field) => field.name)).toContain('contractAmount');
    // One role whose name joins two others with a separator must not get their view.
    for (const forged of [['Data.Read\u0000Data.Read.Financials'], ['Data.Read,Data.Read.Financials'], ['Data.Read","Data.Read.Financials']]) {
      expect([forged, endpoint.prepare(forged).view.fields.length]).toEqual([forged, 0]);
    }
    // Another endpoint (another resource) prepares its own.
    expect(summaryEndpoint(INVOICES, deps).prepare(['Data.Read', 'Data.Read.Financials']).view.resource).toBe(INVOICES);
  });

  it('keeps a bounded number of role sets, and answers the right view after forgetting them', () => {
    const endpoint = summaryEndpoint(CONTRACTS, deps);
    const first = endpoint.prepare(['Data.Read']);
    for (let i = 0; i < 1000; i++) endpoint.prepare(['Data.Read', `role-${i}`]);
    const again = endpoint.prepare(['Data.Read']);
    expect(again).not.toBe(first);
    expect(again.view.fields).toEqual(first.view.fields);
  });
});
