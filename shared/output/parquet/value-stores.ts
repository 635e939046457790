/**
 * Growable runs of physical values behind the column buffers: a typed array that doubles when
 * full, copied out once per row group. One class per array type: each `push` then stores into one
 * kind of array, which keeps the hottest line of an export monomorphic.
 */
import type { PlainValues } from './sealed.js';

/** A growable run of physical values. */
export interface ValueStore<V> {
  push(value: V): void;
  /**
   * The values so far; the store starts over. `owned`: copied out into arrays of their own (to
   * transfer to a worker); else views of the store's memory (README.md, "Views").
   */
  seal(owned: boolean): PlainValues;
}

const INITIAL_VALUES = 1024;

/** INT32 values (days, line numbers). */
export class Int32Store implements ValueStore<number> {
  private data = new Int32Array(INITIAL_VALUES);
  private count = 0;

  push(value: number): void {
    if (this.count === this.data.length) this.data = grown(this.data, new Int32Array(this.data.length * 2));
    this.data[this.count++] = value;
  }

  seal(owned: boolean): PlainValues {
    const data = owned ? this.data.slice(0, this.count) : this.data.subarray(0, this.count);
    this.count = 0;
    return { kind: 'int32', data };
  }
}

/** 64-bit values: INT64 held as safe integers (milliseconds, unscaled decimals), or DOUBLE. */
export class Float64Store implements ValueStore<number> {
  private data = new Float64Array(INITIAL_VALUES);
  private count = 0;

  constructor(private readonly kind: 'int64' | 'double') {}

  push(value: number): void {
    if (this.count === this.data.length) this.data = grown(this.data, new Float64Array(this.data.length * 2));
    this.data[this.count++] = value;
  }

  seal(owned: boolean): PlainValues {
    const data = owned ? this.data.slice(0, this.count) : this.data.subarray(0, this.count);
    this.count = 0;
    return { kind: this.kind, data };
  }
}

/** BOOLEAN values, a byte each (0 or 1) until a page packs them to bits. */
export class BooleanStore implements ValueStore<boolean> {
  private data = new Uint8Array(INITIAL_VALUES);
  private count = 0;

  push(value: boolean): void {
    if (this.count === this.data.length) this.data = grown(this.data, new Uint8Array(this.data.length * 2));
    this.data[this.count++] = value ? 1 : 0;
  }

  seal(owned: boolean): PlainValues {
    const data = owned ? this.data.slice(0, this.count) : this.data.subarray(0, this.count);
    this.count = 0;
    return { kind: 'boolean', data };
  }
}

/**
 * Strings as PLAIN BYTE_ARRAY: a 4-byte little-endian length, then the UTF-8 bytes, written
 * straight into one buffer (no array per value). Lone surrogates become U+FFFD, as in Buffer.from.
 */
export class Utf8Store implements ValueStore<string> {
  private data = Buffer.allocUnsafe(64 * 1024);
  private ends = new Int32Array(INITIAL_VALUES);
  private count = 0;
  private offset = 0;

  push(value: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    const room = this.offset + 4 + value.length * 3;
    if (room > this.data.length) this.data = grown(this.data, Buffer.allocUnsafe(Math.max(this.data.length * 2, room)));
    const { data } = this;
    const start = this.offset + 4;
    const length = asciiWrite(data, value, start) ?? data.write(value, start, 'utf8');
    data[this.offset] = length;
    data[this.offset + 1] = length >>> 8;
    data[this.offset + 2] = length >>> 16;
    data[this.offset + 3] = length >>> 24;
    this.offset = start + length;
    if (this.count === this.ends.length) this.ends = grown(this.ends, new Int32Array(this.ends.length * 2));
    this.ends[this.count++] = this.offset;
  }

  seal(owned: boolean): PlainValues {
    const data = this.data.subarray(0, this.offset);
    const values: PlainValues = owned
      ? { kind: 'bytes', data: new Uint8Array(data), ends: this.ends.slice(0, this.count) }
      : { kind: 'bytes', data, ends: this.ends.subarray(0, this.count) };
    this.count = 0;
    this.offset = 0;
    return values;
  }
}

/** Strings up to this many code units are tried as ASCII by hand; longer ones go to Buffer#write at once. */
const ASCII_BY_HAND = 64;

/**
 * Writes a short ASCII string byte by byte (its UTF-8 is its code units): measured faster than
 * Buffer#write for the ids, codes and names exports are made of, whose call costs more than the
 * copy. The byte count, or undefined (and bytes to be overwritten) when the string is not that.
 */
function asciiWrite(data: Buffer, value: string, start: number): number | undefined {
  const length = value.length;
  if (length > ASCII_BY_HAND) return undefined;
  for (let i = 0; i < length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 0x80) return undefined;
    data[start + i] = code;
  }
  return length;
}

function grown<T extends Int32Array | Float64Array | Uint8Array>(from: T, to: T): T {
  to.set(from as never);
  return to;
}
