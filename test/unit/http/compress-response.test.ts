import { describe, expect, it } from '@jest/globals';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { compressResponse, MIN_COMPRESSED_BYTES, negotiateEncoding } from '../../../shared/http/compress-response.js';
import type { HttpResult } from '../../../shared/http/output-stages/output-stage.js';

const json = (size: number, contentType = 'application/json; charset=utf-8'): HttpResult => ({
  status: 200,
  headers: { 'Content-Type': contentType, 'X-Request-ID': 'r1' },
  body: Buffer.from(JSON.stringify({ data: 'x'.repeat(size) })),
  records: 0,
});

describe('negotiateEncoding', () => {
  const cases: [string | null, string][] = [
    [null, 'identity'],
    ['', 'identity'],
    ['gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0, gzip;q=0', 'identity'],
    ['*', 'br'],
    ['*;q=0.2, gzip;q=0.1', 'br'],
    ['deflate', 'identity'],
    ['identity', 'identity'],
    ['GZIP;Q=1.0', 'gzip'],
    ['x-gzip', 'gzip'],
    ['gzip;q=2', 'identity'],
    ['identity;q=0, *;q=0', 'identity'],
  ];
  it.each(cases)('picks from %j: %s', (header, expected) => {
    expect(negotiateEncoding(header)).toBe(expected);
  });
});

describe('compressResponse', () => {
  it('compresses a JSON answer with gzip and with br, losslessly, and says so', async () => {
    const result = json(20_000);
    const gz = await compressResponse(result, 'gzip');
    expect(gz.headers['Content-Encoding']).toBe('gzip');
    expect(gz.headers.Vary).toBe('Accept-Encoding');
    expect(gunzipSync(gz.body as Uint8Array).equals(result.body as Buffer)).toBe(true);
    const br = await compressResponse(result, 'br');
    expect(br.headers['Content-Encoding']).toBe('br');
    expect(brotliDecompressSync(br.body as Uint8Array).equals(result.body as Buffer)).toBe(true);
    expect((br.body as Uint8Array).byteLength).toBeLessThan((result.body as Buffer).byteLength / 10);
  });

  it('compresses problem documents too', async () => {
    expect((await compressResponse(json(5000, 'application/problem+json'), 'gzip')).headers['Content-Encoding']).toBe('gzip');
  });

  it('sends a body too small to gain as it is, still varying on Accept-Encoding', async () => {
    const small = json(MIN_COMPRESSED_BYTES - 100);
    const answer = await compressResponse(small, 'br');
    expect(answer.headers['Content-Encoding']).toBeUndefined();
    expect(answer.headers.Vary).toBe('Accept-Encoding');
    expect(answer.body).toEqual(small.body);
  });

  it('never touches Parquet or zip bodies', async () => {
    for (const contentType of ['application/vnd.apache.parquet', 'application/zip']) {
      const binary = json(50_000, contentType);
      expect(await compressResponse(binary, 'br, gzip')).toBe(binary);
    }
  });
});
