import { describe, expect, it } from '@jest/globals';
import { negotiateOffer, resourceOffers, type Offer } from '../../../shared/http/negotiate.js';
import { CONTRACTS } from '../../../shared/model/contracts.js';
import { INVOICES } from '../../../shared/model/invoices.js';

/** The format negotiation chooses. */
const format = (accept: string | null, offers: readonly Offer[]) => negotiateOffer(accept, offers)?.format;

/** JSON and one Parquet file: what contracts offer. */
const BOTH = resourceOffers(CONTRACTS);

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
    const json: Offer[] = [{ format: 'json', mediaType: 'application/json' }];
    expect(format('application/vnd.apache.parquet', json)).toBeUndefined();
    expect(format('*/*', json)).toBe('json');
  });
});

describe('Accept negotiation with a format under two media types', () => {
  // JSON, and the zip of two tables under the Parquet media type and its own: what invoices offer.
  const zipped = resourceOffers(INVOICES);

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
    expect(format('application/zip', BOTH)).toBeUndefined();
  });
});
