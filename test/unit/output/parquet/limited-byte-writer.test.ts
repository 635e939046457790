import { describe, expect, it } from '@jest/globals';
import { OutputLimitExceeded } from '../../../../shared/output/output-limit-exceeded.js';
import { LimitedByteWriter } from '../../../../shared/output/parquet/limited-byte-writer.js';

describe('LimitedByteWriter', () => {
  it('gives back every byte in order, small appends buffered and large ones as chunks of their own', () => {
    const sink = new LimitedByteWriter(1 << 20);
    const large = new Uint8Array(70 * 1024).fill(7);
    sink.appendBytes(Uint8Array.of(1, 2, 3));
    sink.appendBytes(large);
    sink.appendUint8(9);
    sink.flush();
    sink.appendBytes(Uint8Array.of(4));
    sink.finish();
    const parts = sink.parts();
    expect(parts.map((part) => part.byteLength)).toEqual([3, large.byteLength, 1, 1]);
    expect(Buffer.concat(parts)).toEqual(Buffer.concat([Uint8Array.of(1, 2, 3), large, Uint8Array.of(9, 4)]));
    expect(sink.offset).toBe(large.byteLength + 5);
  });

  it('keeps its own copy of a large append: the caller may reuse its array', () => {
    const sink = new LimitedByteWriter(1 << 20);
    const reused = new Uint8Array(64 * 1024).fill(1);
    sink.appendBytes(reused);
    reused.fill(2);
    sink.finish();
    expect(sink.parts()[0]!.every((byte) => byte === 1)).toBe(true);
  });

  it('fails at the flush after the limit is passed, not before', () => {
    const sink = new LimitedByteWriter(100);
    sink.appendBytes(new Uint8Array(100));
    expect(() => sink.flush()).not.toThrow();
    sink.appendUint8(0);
    expect(() => sink.flush()).toThrow(OutputLimitExceeded);
  });
});
