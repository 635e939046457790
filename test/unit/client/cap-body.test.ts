import { describe, expect, it } from '@jest/globals';
import { BodyTooLarge, capBody } from '../../../client/src/summary-api.js';

function streamOf(chunks: number, size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent++ < chunks) controller.enqueue(new Uint8Array(size));
      else controller.close();
    },
  });
}

describe('capped answer bodies', () => {
  it('passes a body within the cap unchanged, status and headers included', async () => {
    const response = capBody(new Response(streamOf(4, 1000), { status: 200, headers: { 'x-request-id': 'r1' } }), 4000);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('r1');
    expect((await response.arrayBuffer()).byteLength).toBe(4000);
  });

  it('refuses a declared length past the cap before reading anything', () => {
    // A Response built here computes its own length, so the declared one is given by a stand-in.
    const declared = { status: 200, headers: new Headers({ 'content-length': '5000' }), body: null } as unknown as Response;
    expect(() => capBody(declared, 4000)).toThrow(BodyTooLarge);
  });

  it('fails the read of a body that grows past the cap without declaring it', async () => {
    const response = capBody(new Response(streamOf(1_000_000, 1000)), 4000);
    await expect(response.arrayBuffer()).rejects.toBeInstanceOf(BodyTooLarge);
  });
});
