import { describe, expect, it } from '@jest/globals';
import { buildOpenApi } from '../../../openapi/build-openapi.js';
import { createDocumentValidator } from '../../support/document-validator.js';
import { checkResponse, type ObservedResponse } from '../../support/response-checker.js';

const document = buildOpenApi() as Record<string, unknown>;
const validator = createDocumentValidator(document);

const envelope = {
  data: [{ contractId: 'C-1', status: 'Published', createdDate: '2025-01-02T03:04:05.000Z' }],
  pagination: { page: 1, pageSize: 25, totalRecords: 1, totalPages: 1, hasNext: false },
  meta: { requestId: 'req-1', generatedAt: '2025-06-01T12:00:00.000Z' },
};
const problem = { type: 'https://summary-service.invalid/problems/not-acceptable', title: 'Not acceptable', status: 406, detail: 'd', code: 'NOT_ACCEPTABLE', requestId: 'req-1' };

function observed(overrides: Partial<ObservedResponse> & { contentType?: string; requestId?: string | null } = {}): ObservedResponse {
  const headers = new Headers({ 'content-type': overrides.contentType ?? 'application/json; charset=utf-8' });
  if (overrides.requestId !== null) headers.set('x-request-id', overrides.requestId ?? 'req-1');
  return { path: '/v1/contracts/summary', method: 'POST', status: 200, body: envelope, ...overrides, headers: overrides.headers ?? headers };
}

describe('checkResponse', () => {
  it('accepts a conforming JSON page and a conforming problem', () => {
    expect(checkResponse(document, validator, observed())).toEqual([]);
    expect(checkResponse(document, validator, observed({ status: 406, contentType: 'application/problem+json', body: problem }))).toEqual([]);
  });

  it('reports a status the operation does not list', () => {
    expect(checkResponse(document, validator, observed({ status: 418 }))).toEqual([expect.stringMatching(/status 418 is not listed/)]);
  });

  it('reports a missing X-Request-ID', () => {
    expect(checkResponse(document, validator, observed({ requestId: null }))).toEqual([expect.stringMatching(/X-Request-ID is missing/)]);
  });

  it('reports a header value outside its schema', () => {
    expect(checkResponse(document, validator, observed({ requestId: 'has spaces' })).join()).toMatch(/header X-Request-ID/);
  });

  it('reports a media type the response does not list', () => {
    expect(checkResponse(document, validator, observed({ contentType: 'text/html' })).join()).toMatch(/media type "text\/html"/);
  });

  it('reports a body that leaks a field, and a problem code of another status', () => {
    const leaked = { ...envelope, data: [{ ...envelope.data[0], tenantId: 'contoso' }] };
    expect(checkResponse(document, validator, observed({ body: leaked })).join()).toMatch(/additional/);
    const wrongCode = { ...problem, code: 'MISSING_ROLE' };
    expect(checkResponse(document, validator, observed({ status: 406, contentType: 'application/problem+json', body: wrongCode }))).not.toEqual([]);
  });
});
