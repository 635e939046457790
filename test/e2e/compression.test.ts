import { describe, expect, it } from '@jest/globals';
import { request } from 'node:https';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { accessToken, identities, stack } from '../support/stack.js';

/** A raw POST over node:https (fetch would decode the body): status, headers and the bytes on the wire. */
async function raw(path: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: Buffer }> {
  const token = await accessToken('contoso-full');
  const url = new URL(`${stack.baseUrl}${path}`);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`, 'ocp-apim-subscription-key': identities.subscriptionKeys[0]!, 'x-api-key': identities.apiKeys[0]!,
        'content-type': 'application/json', ...headers,
      },
    }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, bytes: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const PAGE = { pageSize: 1000 };

describe('compressed JSON', () => {
  it('sends a 1,000-record page in gzip or br at under 15% of its identity bytes, decoding to the same answer', async () => {
    const identity = await raw('/v1/contracts/summary', PAGE, { 'accept-encoding': 'identity', 'x-request-id': 'same-id' });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.headers.vary).toBe('Accept-Encoding');
    const plain = JSON.parse(identity.bytes.toString()) as { data: unknown[]; meta: { generatedAt: string } };
    expect(plain.data).toHaveLength(1000);
    for (const [coding, decode] of [['gzip', gunzipSync], ['br', brotliDecompressSync]] as const) {
      const answer = await raw('/v1/contracts/summary', PAGE, { 'accept-encoding': coding, 'x-request-id': 'same-id' });
      expect([coding, answer.status, answer.headers['content-encoding']]).toEqual([coding, 200, coding]);
      expect(answer.headers.vary).toBe('Accept-Encoding');
      expect(answer.bytes.length).toBeLessThan(identity.bytes.length * 0.15);
      const decoded = JSON.parse(decode(answer.bytes).toString()) as typeof plain;
      expect(decoded.data).toEqual(plain.data);
    }
  });

  it('prefers br when both are equally welcome, and honours q-values', async () => {
    expect((await raw('/v1/contracts/summary', PAGE, { 'accept-encoding': 'gzip, br' })).headers['content-encoding']).toBe('br');
    expect((await raw('/v1/contracts/summary', PAGE, { 'accept-encoding': 'br;q=0.5, gzip' })).headers['content-encoding']).toBe('gzip');
  });

  it('compresses a large problem document, and sends small ones as they are', async () => {
    const small = await raw('/v1/contracts/summary', { bogus: 1 }, { 'accept-encoding': 'gzip' });
    expect(small.status).toBe(400);
    expect(small.headers['content-encoding']).toBeUndefined();
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`unknownMember${i}`, i]));
    const large = await raw('/v1/contracts/summary', many, { 'accept-encoding': 'gzip' });
    expect(large.status).toBe(400);
    expect(large.headers['content-encoding']).toBe('gzip');
    expect((JSON.parse(gunzipSync(large.bytes).toString()) as { code: string }).code).toBe('UNKNOWN_FILTER');
  });

  it('never recompresses Parquet or zip', async () => {
    for (const resource of ['contracts', 'invoices']) {
      const answer = await raw(`/v1/${resource}/summary`, { createdFrom: '2025-03-01', createdTo: '2025-03-31' }, { accept: 'application/vnd.apache.parquet', 'accept-encoding': 'br, gzip' });
      expect([resource, answer.status, answer.headers['content-encoding']]).toEqual([resource, 200, undefined]);
      expect(answer.bytes.subarray(0, 4).toString('latin1')).toMatch(/^(PAR1|PK\x03\x04)$/);
    }
  });
});
