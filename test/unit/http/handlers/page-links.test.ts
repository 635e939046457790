import { describe, expect, it } from '@jest/globals';
import parseLinkHeader from 'parse-link-header';
import { linkBase, pageLinks } from '../../../../shared/http/output-stages/page-links.js';
import { paginate, type PageInfo } from '../../../../shared/output/pagination.js';

const BASE = 'https://gateway.example.com/summary';
const page = (over: Partial<PageInfo>) => paginate({ page: 1, pageSize: 25, totalRecords: 60, resultWindow: 10_000, ...over });

describe('linkBase', () => {
  it('starts links on the public base URL, and gives none without it or when the body carries page', () => {
    const query = new URLSearchParams();
    expect(linkBase(BASE, '/v1/invoices/summary', query, { createdFrom: '2025-01-01' })?.operationUrl).toBe(`${BASE}/v1/invoices/summary`);
    expect(linkBase(BASE, '/v1/invoices/summary', query, undefined)?.operationUrl).toBe(`${BASE}/v1/invoices/summary`);
    expect(linkBase(undefined, '/v1/invoices/summary', query, {})).toBeUndefined();
    expect(linkBase(BASE, '/v1/invoices/summary', query, { page: 2 })).toBeUndefined();
  });

  it('leaves out the query parameters the body overrides (never read, so never carried)', () => {
    const base = linkBase(BASE, '/v1/contracts/summary', new URLSearchParams('createdFrom=junk&createdFrom=again&contractWorkspaceID=CW0001'), { createdFrom: '2025-01-01' });
    // The body's own value is carried instead, first: a link is self-contained.
    expect([...base!.query]).toEqual([['createdFrom', '2025-01-01'], ['contractWorkspaceID', 'CW0001']]);
  });
});

describe('pageLinks', () => {
  const base = (query = '') => linkBase(BASE, '/v1/contracts/summary', new URLSearchParams(query), {})!;

  it('links next, first and last with page and pageSize, in RFC 8288 form', () => {
    const { header, next } = pageLinks(base(), page({ page: 2 }));
    expect(next).toBe(`${BASE}/v1/contracts/summary?page=3&pageSize=25`);
    expect(header).toBe(`<${next}>; rel="next", <${BASE}/v1/contracts/summary?page=1&pageSize=25>; rel="first", <${BASE}/v1/contracts/summary?page=3&pageSize=25>; rel="last"`);
    expect(parseLinkHeader(header)).toMatchObject({ next: { page: '3' }, first: { page: '1' }, last: { page: '3' } });
  });

  it('has no next on the last page or past it, and no last on an empty result', () => {
    expect(pageLinks(base(), page({ page: 3 })).next).toBeUndefined();
    expect(parseLinkHeader(pageLinks(base(), page({ page: 3 })).header)?.next).toBeUndefined();
    const empty = pageLinks(base(), page({ totalRecords: 0 }));
    expect(Object.keys(parseLinkHeader(empty.header) ?? {})).toEqual(['first']);
  });

  it('leaves out last when a jump there would pass the result window', () => {
    const links = parseLinkHeader(pageLinks(base(), page({ totalRecords: 10_001 })).header);
    expect(links?.last).toBeUndefined();
    expect(parseLinkHeader(pageLinks(base(), page({ totalRecords: 10_000 })).header)?.last?.page).toBe('400');
  });

  it('carries the caller\'s query filters, encoded, less page, pageSize and the Functions key', () => {
    const { next } = pageLinks(base('contractWorkspaceID=CW 1&page=7&pageSize=3&code=secret&orderBy=createdDate'), page({ page: 1 }));
    expect(next).toBe(`${BASE}/v1/contracts/summary?contractWorkspaceID=CW+1&orderBy=createdDate&page=2&pageSize=25`);
  });

  it('cannot be made to break the header: values are percent-encoded', () => {
    const { header } = pageLinks(base('contractWorkspaceID=a%3E%2C%3Cb%0D%0AX: y'), page({}));
    expect(header).not.toMatch(/[\r\n]/);
    expect(parseLinkHeader(header)?.next?.contractWorkspaceID).toBe('a>,<b\r\nX: y');
  });
});
