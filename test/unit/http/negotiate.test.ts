import { describe, expect, it } from '@jest/globals';
import { negotiate, offersOf } from '../../../shared/http/negotiate.js';

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
    expect(negotiate(accept, BOTH)).toBe(expected);
  });

  it('offers only what is available', () => {
    expect(negotiate('application/vnd.apache.parquet', ['json'])).toBeUndefined();
    expect(negotiate('*/*', ['json'])).toBe('json');
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
    expect(negotiate(accept, zipped)).toBe(expected);
  });

  it('does not take application/zip where no export is a zip', () => {
    expect(negotiate('application/zip', offersOf(['json', 'parquet']))).toBeUndefined();
  });
});
