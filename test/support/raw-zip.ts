import { crc32 } from 'node:zlib';

/** An entry as it goes into the archive: its bytes as stored, and what its headers declare. */
export interface RawZipEntry {
  readonly name: string;
  /** 0 stored, 8 deflated. */
  readonly method: 0 | 8;
  readonly data: Uint8Array;
  readonly crc: number;
  /** The uncompressed size the headers declare (a hostile archive may lie). */
  readonly size: number;
}

/** A stored entry of `bytes`, declared as it is. */
export function storedEntry(name: string, bytes: Uint8Array): RawZipEntry {
  return { name, method: 0, data: bytes, crc: crc32(bytes), size: bytes.byteLength };
}

/**
 * A deflated entry of `size` zero bytes, written as deflate by hand (RFC 1951, one block of fixed
 * codes): a literal zero, then "258 bytes from 1 back" over and over, 13 bits for 258 bytes. zlib
 * takes seconds to find that for gigabytes; this takes a loop. Its CRC-32 is of the zeros, as a
 * reader checks it.
 */
export function zerosEntry(name: string, size: number): RawZipEntry {
  const copies = Math.floor(Math.max(0, size - 1) / 258);
  const literals = size - copies * 258;
  const out = new Uint8Array(Math.ceil((3 + 8 * literals + 13 * copies + 7) / 8) + 4);
  let at = 0;
  let bits = 0;
  let count = 0;
  // Deflate packs bits from the least significant; a Huffman code goes most significant bit first.
  const put = (value: number, length: number) => {
    bits |= value << count;
    count += length;
    while (count >= 8) {
      out[at++] = bits & 0xff;
      bits >>>= 8;
      count -= 8;
    }
  };
  // A Huffman code's bits reversed, to be put as they go.
  const code = (value: number, length: number) => {
    let reversed = 0;
    for (let index = 0; index < length; index++) reversed |= ((value >> index) & 1) << (length - 1 - index);
    return reversed;
  };
  const LITERAL_ZERO = code(0x30, 8);
  // Length 258 (symbol 285, 11000101) and distance 1 (code 00000): 13 bits.
  const COPY = code(0xc5, 8);
  put(0b011, 3); // the last block, fixed codes
  for (let index = 0; index < literals; index++) put(LITERAL_ZERO, 8);
  for (let index = 0; index < copies; index++) put(COPY, 13);
  put(0, 7); // end of block (symbol 256: seven zeros)
  if (count > 0) out[at++] = bits & 0xff;
  const zeros = Buffer.alloc(Math.min(size, 16 * 1024 * 1024));
  let crc = 0;
  for (let done = 0; done < size; done += zeros.length) crc = crc32(zeros.subarray(0, Math.min(zeros.length, size - done)), crc);
  return { name, method: 8, data: out.subarray(0, at), crc, size };
}

/** A zip of `entries` written by hand, headers as declared (zip32: every size under 4 GiB). */
export function rawZip(entries: readonly RawZipEntry[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const common = (header: Buffer, at: number) => {
      header.writeUInt16LE(20, at); // version needed
      header.writeUInt16LE(0x0800, at + 2); // UTF-8 names
      header.writeUInt16LE(entry.method, at + 4);
      header.writeUInt32LE(0, at + 6); // time and date
      header.writeUInt32LE(entry.crc >>> 0, at + 10);
      header.writeUInt32LE(entry.data.byteLength, at + 14);
      header.writeUInt32LE(entry.size, at + 18);
      header.writeUInt16LE(name.length, at + 22);
    };
    const local = Buffer.alloc(30 + name.length);
    local.writeUInt32LE(0x04034b50, 0);
    common(local, 4);
    name.copy(local, 30);
    const record = Buffer.alloc(46 + name.length);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    common(record, 6);
    record.writeUInt32LE(offset, 42);
    name.copy(record, 46);
    parts.push(local, Buffer.from(entry.data));
    central.push(record);
    offset += local.length + entry.data.byteLength;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, directory, end]);
}
