import { describe, expect, it } from '@jest/globals';
import { ApiError } from '../../../shared/errors/api-error.js';
import { MAX_BODY_BYTES, readJsonBody, type BodySource } from '../../../shared/http/read-json-body.js';

/** A body source over chunks, recording how many chunks were pulled and whether it was cancelled. */
function source(chunks: (string | Uint8Array)[], headers: Record<string, string> = { 'content-type': 'application/json' }) {
  const state = { pulled: 0, cancelled: false };
  const queue = chunks.map((chunk) => (typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk));
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = queue.shift();
      if (next === undefined) controller.close();
      else {
        state.pulled++;
        controller.enqueue(next);
      }
    },
    cancel() {
      state.cancelled = true;
    },
  }, { highWaterMark: 0 });
  const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const request: BodySource = { headers: { get: (name) => lower[name.toLowerCase()] ?? null }, body };
  return { request, state };
}

async function failure(request: BodySource): Promise<ApiError> {
  const error = await readJsonBody(request).then(() => undefined, (caught: unknown) => caught);
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

describe('readJsonBody', () => {
  it('reads an empty body, a missing body and a blank body as no filters', async () => {
    await expect(readJsonBody(source([]).request)).resolves.toBeUndefined();
    await expect(readJsonBody({ headers: { get: () => null }, body: null })).resolves.toBeUndefined();
    await expect(readJsonBody(source([' \n\t ']).request)).resolves.toBeUndefined();
  });

  it('parses a JSON object sent in several chunks', async () => {
    await expect(readJsonBody(source(['{"createdFrom":"2025-', '01-01","pageSize":', '5}']).request)).resolves.toEqual({ createdFrom: '2025-01-01', pageSize: 5 });
  });

  it('refuses a declared Content-Length over the limit before reading a byte', async () => {
    const { request, state } = source(['{}'], { 'content-type': 'application/json', 'content-length': String(MAX_BODY_BYTES + 1) });
    const error = await failure(request);
    expect([error.code, error.status]).toEqual(['REQUEST_TOO_LARGE', 413]);
    expect(state.pulled).toBe(0);
  });

  it('refuses a streamed body as soon as it passes the limit, and cancels the rest', async () => {
    const chunk = new Uint8Array(16 * 1024).fill(0x20);
    const { request, state } = source(Array.from({ length: 16 }, () => chunk));
    const error = await failure(request);
    expect([error.code, error.status]).toEqual(['REQUEST_TOO_LARGE', 413]);
    expect(state.pulled).toBe(MAX_BODY_BYTES / chunk.byteLength + 1);
    expect(state.cancelled).toBe(true);
  });

  it('accepts a body of exactly the limit', async () => {
    const text = `{"a":"${'x'.repeat(MAX_BODY_BYTES - 8)}"}`;
    expect(Buffer.byteLength(text)).toBe(MAX_BODY_BYTES);
    await expect(readJsonBody(source([text]).request)).resolves.toEqual({ a: 'x'.repeat(MAX_BODY_BYTES - 8) });
  });

  it.each([null, 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'application/jsonx'])(
    'refuses a body sent with Content-Type %s',
    async (contentType) => {
      const error = await failure(source(['{}'], contentType === null ? {} : { 'content-type': contentType }).request);
      expect([error.code, error.status]).toEqual(['UNSUPPORTED_MEDIA_TYPE', 415]);
    },
  );

  it.each(['application/json', 'APPLICATION/JSON; charset=UTF-8', 'application/json;charset="utf8"', 'application/problem+json', 'application/vnd.example+json'])(
    'accepts Content-Type %s',
    async (contentType) => {
      await expect(readJsonBody(source(['{"page":2}'], { 'content-type': contentType }).request)).resolves.toEqual({ page: 2 });
    },
  );

  it.each(['{', '{"a":1,}', "{'a':1}", 'NaN'])('refuses the invalid JSON %s', async (text) => {
    const error = await failure(source([text]).request);
    expect([error.code, error.status]).toEqual(['INVALID_JSON', 400]);
  });

  it('refuses a member given twice at the top level, naming it', async () => {
    const error = await failure(source(['{"page":1,"pageSize":5,"page":2}']).request);
    expect([error.code, error.status]).toEqual(['INVALID_BODY', 400]);
    expect(error.errors.map((problem) => problem.member)).toEqual(['page']);
  });

  it('refuses a name repeated inside a nested object too (an export job\'s ifNoneMatch), and leaves alike objects in a list alone', async () => {
    await expect(readJsonBody(source(['{"a":{"x":1,"x":2}}']).request)).rejects.toMatchObject({ code: 'INVALID_BODY', errors: [{ member: 'a.x' }] });
    await expect(readJsonBody(source(['{"b":[{"y":1},{"y":2}]}']).request)).resolves.toEqual({ b: [{ y: 1 }, { y: 2 }] });
  });

  it('returns a JSON value that is not an object for the filter parser to refuse', async () => {
    await expect(readJsonBody(source(['[1,2]']).request)).resolves.toEqual([1, 2]);
  });
});
