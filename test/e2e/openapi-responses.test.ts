import { describe, expect, it } from '@jest/globals';
import { call, type CallOptions } from '../support/stack.js';
import { committedDocument, createDocumentValidator } from '../support/document-validator.js';
import { checkResponse } from '../support/response-checker.js';

// Live answers of the local stack, checked against the committed document (the one API
// Management imports): the status is listed for the operation, required headers are present, and
// the media type is listed, and a JSON body validates against its schema. Parquet bodies are
// checked by the export's own tests (two independent readers), not here.
const document = committedDocument();
const validator = createDocumentValidator(document);
type Resource = 'contracts' | 'invoices';

/** Calls an operation and returns the status, the body and what the document says about them. */
async function observe(resource: Resource, options: CallOptions = {}) {
  const response = await call(resource, options);
  const json = /json/.test(response.headers.get('content-type') ?? '');
  const body = (json ? await response.json() : (await response.arrayBuffer(), undefined)) as { data?: unknown[]; code?: string } | undefined;
  const problems = checkResponse(document, validator, { path: `/v1/${resource}/summary`, method: 'POST', status: response.status, headers: response.headers, body });
  return { status: response.status, body: body ?? {}, problems, contentType: response.headers.get('content-type') };
}

const CALLERS = ['contoso-basic', 'contoso-financials', 'contoso-suppliers', 'contoso-drafts', 'contoso-full', 'fabrikam-basic'];
const RESOURCES: Resource[] = ['contracts', 'invoices'];

describe('live responses conform to openapi/openapi.json', () => {
  describe.each(RESOURCES)('POST /v1/%s/summary, JSON 200', (resource) => {
    it.each(CALLERS)('as %s', async (as) => {
      const { status, body, problems } = await observe(resource, { as, body: { pageSize: 50 } });
      expect(status).toBe(200);
      expect(body.data!.length).toBeGreaterThan(0);
      expect(problems).toEqual([]);
    });

    it('with filters and ordering, from the body and the query string', async () => {
      const { status, body, problems } = await observe(resource, {
        body: { updatedFrom: '2025-03-01', updatedTo: '2025-03-31', orderBy: 'updatedDate', order: 'desc', pageSize: 100 },
        query: 'page=1',
      });
      expect([status, problems]).toEqual([200, []]);
      expect(body.data!.length).toBeGreaterThan(0);
    });

    it('for a page past the end (empty data and a warning)', async () => {
      const { status, problems } = await observe(resource, { body: { page: 9999, pageSize: 100 } });
      expect([status, problems]).toEqual([200, []]);
    });

    it('with an empty body and no Content-Type', async () => {
      const { status, problems } = await observe(resource, { rawBody: '', headers: { 'content-type': undefined } });
      expect([status, problems]).toEqual([200, []]);
    });
  });

  const PROBLEMS: [string, Resource, CallOptions, number, string][] = [
    ['malformed JSON', 'contracts', { rawBody: '{"createdFrom": ' }, 400, 'INVALID_JSON'],
    ['a wrongly cased filter (with errors[])', 'invoices', { body: { pagesize: 5, createdFrom: '2025-02-30', createdTo: '2025-03-01' } }, 400, 'UNKNOWN_FILTER'],
    ['a range over one month', 'contracts', { body: { createdFrom: '2025-01-15', createdTo: '2025-02-16' } }, 400, 'DATE_RANGE_TOO_LONG'],
    ['orderBy on a field the caller cannot see', 'contracts', { as: 'contoso-basic', body: { orderBy: 'contractAmount' } }, 400, 'INVALID_ORDER_BY'],
    ['a filter given twice in the query string', 'invoices', { query: 'status=Paid&status=Draft' }, 400, 'INVALID_FILTER'],
    ['a missing subscription key (gateway)', 'contracts', { headers: { 'ocp-apim-subscription-key': undefined } }, 401, 'INVALID_SUBSCRIPTION_KEY'],
    ['a wrong x-api-key', 'invoices', { headers: { 'x-api-key': 'not-a-key-of-this-service' } }, 401, 'INVALID_API_KEY'],
    ['a missing token', 'contracts', { headers: { authorization: undefined } }, 401, 'INVALID_TOKEN'],
    ['a malformed token', 'invoices', { headers: { authorization: 'Bearer not.a.jwt' } }, 401, 'INVALID_TOKEN'],
    ['a client without Data.Read', 'contracts', { as: 'contoso-norole' }, 403, 'MISSING_ROLE'],
    ['a client registered for no data tenant', 'invoices', { as: 'unregistered-app' }, 403, 'CLIENT_NOT_REGISTERED'],
    ['an Accept the service cannot answer', 'contracts', { headers: { accept: 'text/csv' } }, 406, 'NOT_ACCEPTABLE'],
    ['a body over 64 KiB', 'invoices', { rawBody: JSON.stringify({ contractId: 'x'.repeat(70 * 1024) }) }, 413, 'REQUEST_TOO_LARGE'],
    ['a body that is not JSON', 'contracts', { rawBody: 'a=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ];

  it.each(PROBLEMS)('problem: %s', async (_case, resource, options, expectedStatus, expectedCode) => {
    const { status, body, problems } = await observe(resource, options);
    expect([status, body.code, problems]).toEqual([expectedStatus, expectedCode, []]);
  });

  it('problem: page with Parquet (400 PAGINATION_NOT_ALLOWED)', async () => {
    const { status, body, problems } = await observe('contracts', { headers: { accept: 'application/vnd.apache.parquet' }, body: { page: 2 } });
    expect([status, body.code, problems]).toEqual([400, 'PAGINATION_NOT_ALLOWED', []]);
  });

  const EXPORTS: [Resource, string][] = [['contracts', 'application/vnd.apache.parquet'], ['invoices', 'application/zip']];
  it.each(EXPORTS)(
    'Parquet 200 of %s: a listed media type (%s) with X-Request-ID and Content-Disposition (body not checked)',
    async (resource, mediaType) => {
      const { status, problems, contentType } = await observe(resource, {
        headers: { accept: 'application/vnd.apache.parquet' },
        body: { createdFrom: '2025-03-01', createdTo: '2025-03-31' },
      });
      expect([status, contentType, problems]).toEqual([200, mediaType, []]);
    },
  );
});

describe('the export jobs\' live responses conform to openapi/openapi.json', () => {
  /** A call of an export operation through the local stack, checked against the document. */
  async function observeJob(path: string, documentPath: string, method: string, options: CallOptions = {}) {
    const response = await call('contracts', { ...options, path, method });
    const body = (await response.json()) as { status?: string; code?: string; id?: string };
    const problems = checkResponse(document, validator, { path: documentPath, method, status: response.status, headers: response.headers, body });
    return { status: response.status, body, problems, location: response.headers.get('location') };
  }

  it('kick-off 202, status 202 then 200 with the manifest, cancel 202, then 404; and its 400', async () => {
    const started = await observeJob('/v1/contracts/exports', '/v1/contracts/exports', 'POST', { body: { createdFrom: '2025-01-01', createdTo: '2025-02-28' } });
    expect([started.status, started.problems]).toEqual([202, []]);
    const path = new URL(started.location!).pathname.replace(/^\/api/, '');
    let status = await observeJob(path, '/v1/exports/{id}', 'GET');
    for (let tries = 0; status.status === 202 && tries < 100; tries++) {
      expect(status.problems).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = await observeJob(path, '/v1/exports/{id}', 'GET');
    }
    expect([status.status, status.body.status, status.problems]).toEqual([200, 'completed', []]);
    const cancelled = await observeJob(path, '/v1/exports/{id}', 'DELETE');
    expect([cancelled.status, cancelled.problems]).toEqual([202, []]);
    const gone = await observeJob(path, '/v1/exports/{id}', 'GET');
    expect([gone.status, gone.body.code, gone.problems]).toEqual([404, 'NOT_FOUND', []]);
    const bad = await observeJob('/v1/contracts/exports', '/v1/contracts/exports', 'POST', { body: { createdFrom: '2025-01-01' } });
    expect([bad.status, bad.body.code, bad.problems]).toEqual([400, 'DATE_RANGE_INCOMPLETE', []]);
  });
});
