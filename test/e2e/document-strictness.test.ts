/**
 * The document as strict as the service (issue 22, point 5): requests the document allows are
 * answered as it says, since generic tools (Schemathesis, Postman, Data Factory's importer) build
 * their requests from it. Generated values within the document's bounds for the query's page and
 * pageSize, the request examples under every format the operation offers, the deepest page the
 * document allows, and an X-Request-ID the document does not constrain.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { call, type CallOptions, type Envelope } from '../support/stack.js';
import { committedDocument, createDocumentValidator } from '../support/document-validator.js';
import { checkResponse } from '../support/response-checker.js';

const document = committedDocument() as Record<string, any>;
const validator = createDocumentValidator(document);
type Resource = 'contracts' | 'invoices';
const RESOURCES: Resource[] = ['contracts', 'invoices'];

const operation = (resource: Resource) => document.paths[`/v1/${resource}/summary`].post;
const queryParameter = (resource: Resource, name: string) => (operation(resource).parameters as { name?: string; schema: { minimum: number; maximum: number } }[]).find((parameter) => parameter.name === name)!;

async function observe(resource: Resource, options: CallOptions) {
  const response = await call(resource, options);
  const json = /json/.test(response.headers.get('content-type') ?? '');
  const body = (json ? await response.json() : (await response.arrayBuffer(), undefined)) as (Envelope & { code?: string }) | undefined;
  const problems = checkResponse(document, validator, { path: `/v1/${resource}/summary`, method: 'POST', status: response.status, headers: response.headers, body });
  return { status: response.status, body, problems };
}

describe.each(RESOURCES)('POST /v1/%s/summary as its document allows', (resource) => {
  it('takes every query page and pageSize within the document\'s bounds (generated), and answers as documented', async () => {
    const page = queryParameter(resource, 'page').schema;
    const pageSize = queryParameter(resource, 'pageSize').schema;
    expect([page.minimum, page.maximum, pageSize.minimum, pageSize.maximum]).toEqual([1, Number.MAX_SAFE_INTEGER, 1, 1000]);
    await fc.assert(fc.asyncProperty(
      fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: page.minimum, max: page.maximum })),
      fc.integer({ min: pageSize.minimum, max: pageSize.maximum }),
      async (pageValue, size) => {
        const { status, problems } = await observe(resource, { query: `page=${pageValue}&pageSize=${size}`, body: { createdFrom: '2025-03-01', createdTo: '2025-03-31' } });
        // Deep jumps into a result with records may pass the result window: the one refusal the document names.
        expect(status === 200 || status === 400).toBe(true);
        expect(problems).toEqual([]);
      },
    ), { numRuns: 25 });
    const tooLarge = await observe(resource, { query: `pageSize=${pageSize.maximum + 1}` });
    expect([tooLarge.status, tooLarge.body?.code]).toEqual([400, 'PAGE_SIZE_TOO_LARGE']);
  });

  it('answers the deepest page the document allows (2^53 − 1, body or query) with an empty page and a warning', async () => {
    for (const options of [{ body: { page: Number.MAX_SAFE_INTEGER } }, { query: `page=${Number.MAX_SAFE_INTEGER}` }]) {
      const { status, body, problems } = await observe(resource, options);
      expect([status, problems]).toEqual([200, []]);
      expect(body!.data).toEqual([]);
      expect(body!.pagination.hasNext).toBe(false);
      expect(body!.meta.warning).toMatch(/past the last page/);
    }
  });

  it('answers every request example under every format the operation offers', async () => {
    const examples = Object.values(operation(resource).requestBody.content['application/json'].examples as Record<string, { value: unknown }>);
    const formats = Object.keys(operation(resource).responses['200'].content as Record<string, unknown>);
    expect(examples.length).toBeGreaterThan(0);
    expect(formats.length).toBeGreaterThanOrEqual(2);
    for (const example of examples) {
      for (const accept of formats) {
        const { status, problems } = await observe(resource, { body: example.value, headers: { accept } });
        expect([accept, status, problems]).toEqual([accept, 200, []]);
      }
    }
  });

  it('ignores an X-Request-ID the document does not constrain, as it says, instead of refusing it', async () => {
    expect(document.components.parameters['X-Request-ID'].schema).toEqual({ type: 'string' });
    const response = await call(resource, { body: {}, headers: { 'x-request-id': 'not valid: spaces & a colon-free "quote"' } });
    expect(response.status).toBe(200);
    expect(response.headers.has('x-client-request-id')).toBe(false);
  });
});
