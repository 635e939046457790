/** Memory answers are encoded into, one after another (made on first use). */
let slab: Buffer | undefined;
/** Bytes of `slab` already handed out: never written again. */
let used = 0;
const SLAB_BYTES = 4 << 20;

/**
 * The UTF-8 bytes of a text (a JSON answer), encoded in one pass. A text that surely fits (three
 * bytes per UTF-16 unit at most) goes into the free part of a shared slab and is handed out as a
 * view of it, so an answer costs neither an allocation nor a copy of its own (a page of 25
 * contracts: 4.8 µs against 7.4 µs for a copy out of scratch memory, 10 µs for Buffer.from,
 * which measures first). Bytes once handed out are never written again: a full slab is left to
 * the views that still hold it, and a new one is made. A larger text is encoded into room for the
 * worst case and copied out at its size (a quarter faster than Buffer.from at 400 kB, measured).
 */
export function utf8Bytes(text: string): Buffer {
  const most = text.length * 3;
  if (most > SLAB_BYTES) {
    const room = Buffer.allocUnsafeSlow(most);
    return Buffer.from(room.subarray(0, room.write(text, 0, 'utf8')));
  }
  if (slab === undefined || SLAB_BYTES - used < most) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    used = 0;
  }
  const start = used;
  used += slab.write(text, start, 'utf8');
  return slab.subarray(start, used);
}
