import { constants, createDeflateRaw, crc32 } from 'node:zlib';

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

/** A deflated entry of `size` zero bytes, made a chunk at a time (a few MiB of memory for any size). */
export async function zerosEntry(name: string, size: number): Promise<RawZipEntry> {
  const chunk = Buffer.alloc(16 * 1024 * 1024);
  const deflate = createDeflateRaw({ level: constants.Z_BEST_COMPRESSION });
  const out: Buffer[] = [];
  deflate.on('data', (part: Buffer) => out.push(part));
  const ended = new Promise((resolve, reject) => deflate.on('end', resolve).on('error', reject));
  let crc = 0;
  for (let written = 0; written < size; written += chunk.length) {
    const part = chunk.subarray(0, Math.min(chunk.length, size - written));
    crc = crc32(part, crc);
    if (!deflate.write(part)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await ended;
  return { name, method: 8, data: Buffer.concat(out), crc, size };
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
