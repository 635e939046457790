import { describe, expect, it } from '@jest/globals';
import { negotiateOffer, offersOf, type Offer } from '../../../shared/http/negotiate.js';
import type { Format } from '../../../shared/model/operation-contract.js';

/** The format negotiation chooses. */
const format = (accept: string | null, offers: readonly (Offer | Format)[]) => negotiateOffer(accept, offers)?.format;

const BOTH = ['json', 'parquet'] as const;

describe('Accept negotiation', () => {
  it.each([
    [null, 'json'],
    ['', 'json'],
    ['application/json', 'json'],
    ['*/*', 'json'],
    ['application/*', 'json'],
    ['application/vnd.apache.parquet', 'parquet'],
    ['application/json;q=0.5, application/vnd.apache.parquet', 'parquet'],
    ['application/vnd.apache.parquet;q=0.2, */*;q=0.9', 'json'],
    ['application/json;q=0, */*', 'parquet'],
    ['text/html', undefined],
    ['application/json;q=0', undefined],
    ['APPLICATION/JSON', 'json'],
    ['garbage', undefined],
  ])('%p selects %p', (accept, expected) => {
    expect(format(accept, BOTH)).toBe(expected);
  });

  it('offers only what is available', () => {
    expect(format('application/vnd.apache.parquet', ['json'])).toBeUndefined();
    expect(format('*/*', ['json'])).toBe('json');
  });
});

describe('Accept negotiation with a format under two media types', () => {
  const zipped = offersOf(['json', 'parquet'], [{ format: 'parquet', mediaType: 'application/zip' }]);

  it.each([
    ['application/zip', 'parquet'],
    ['application/vnd.apache.parquet', 'parquet'],
    ['application/zip;q=0.4, application/json;q=0.3', 'parquet'],
    ['application/zip;q=0.2, application/json', 'json'],
    ['*/*', 'json'],
  ])('%p selects %p', (accept, expected) => {
    expect(format(accept, zipped)).toBe(expected);
  });

  it('does not take application/zip where no export is a zip', () => {
    expect(format('application/zip', offersOf(['json', 'parquet']))).toBeUndefined();
  });
});
