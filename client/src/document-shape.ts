/**
 * Bounds on the structure of what a server sends, checked before it is parsed or unpacked: a
 * parser's memory grows with the values and entries of a body, not its bytes. A 60 MB JSON page
 * of `{}` took the client to 4 GB, and a zip whose central directory lists millions of junk
 * entries costs a reader every one of them. Both clients refuse such bodies first (the Python
 * loader: _load.py, the same numbers).
 */

/**
 * The fewest bytes per object or array a JSON document may spend: a page of records or a problem
 * document spends hundreds; `{}` spends 3. Past it, parsing would cost far more than the body weighs.
 */
export const MIN_BYTES_PER_CONTAINER = 16;

/** However small a document, it may hold this many objects and arrays. */
const FREE_CONTAINERS = 1024;

/**
 * Why `text` is refused before JSON.parse, or undefined: more objects and arrays than
 * MIN_BYTES_PER_CONTAINER allows for its length (counted outside strings, in one pass).
 */
export function jsonShapeProblem(text: string): string | undefined {
  const allowed = Math.max(FREE_CONTAINERS, Math.floor(text.length / MIN_BYTES_PER_CONTAINER));
  let containers = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index++; // a backslash: the next character is escaped
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if ((code === 0x7b || code === 0x5b) && ++containers > allowed) {
      return `it holds more than ${allowed} objects and arrays in ${text.length} characters (a page or a problem spends far more on each)`;
    }
  }
  return undefined;
}

/** The most entries a zip of the service's may list in its central directory (it has two). */
export const MAX_ZIP_ENTRIES = 16;

/** The most bytes its central directory may take: unzippers read it by its size, not its count. */
export const MAX_ZIP_DIRECTORY_BYTES = 64 * 1024;

/**
 * Why a zip is refused before its central directory is read, or undefined: its end record (the
 * last 22 bytes, or before a comment of at most 64 KiB) lists more than MAX_ZIP_ENTRIES entries,
 * or a directory larger than the file. A zip without an end record is left to the unzipper to refuse.
 */
export function zipShapeProblem(bytes: Uint8Array): string | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = bytes.byteLength - 22; at >= Math.max(0, bytes.byteLength - 22 - 0xffff); at--) {
    if (view.getUint32(at, true) !== 0x06054b50) continue;
    const here = view.getUint16(at + 8, true);
    const entries = view.getUint16(at + 10, true);
    const size = view.getUint32(at + 12, true);
    // 0xffff and 0xffffffff say "see the zip64 record", and a zip64 locator before the end record
    // is followed by some unzippers whatever the counts: the service's zips never need either.
    const locator = at >= 20 && view.getUint32(at - 20, true) === 0x07064b50;
    if (entries === 0xffff || here === 0xffff || size === 0xffffffff || locator) return 'it is a zip64 archive, which the service never sends';
    if (Math.max(entries, here) > MAX_ZIP_ENTRIES) return `its central directory lists ${Math.max(entries, here)} entries (the service's zip has two; at most ${MAX_ZIP_ENTRIES} are read)`;
    if (size > MAX_ZIP_DIRECTORY_BYTES) return `its central directory takes ${size} bytes (the service's takes a few hundred; at most ${MAX_ZIP_DIRECTORY_BYTES} are read)`;
    if (size > at) return `its central directory claims ${size} bytes, more than comes before it`;
    return undefined;
  }
  return undefined;
}
