import { ByteWriter } from 'hyparquet-writer';
import { OutputLimitExceeded } from './export-file.js';

/**
 * A Parquet byte sink that moves finished bytes into chunks at every flush (after each row group)
 * and fails as soon as more than `limit` bytes have been written, so an export stops reading the
 * store once the limit is certain to be exceeded. It holds at most the limit plus one row group.
 */
export class LimitedByteWriter extends ByteWriter {
  private readonly chunks: Uint8Array[] = [];

  constructor(private readonly limit: number) {
    super(64 * 1024);
  }

  /** Called by the Parquet writer after each row group. */
  flush(): void {
    if (this.index > 0) {
      this.chunks.push(new Uint8Array(this.buffer.slice(0, this.index)));
      this.index = 0;
    }
    this.check();
  }

  override finish(): void {
    this.flush();
  }

  /** Throws OutputLimitExceeded when more than the limit has been written. */
  check(): void {
    if (this.offset > this.limit) throw new OutputLimitExceeded(`output passed ${this.limit} bytes`);
  }

  /** Everything written, as one array (after `finish`). */
  bytes(): Uint8Array {
    return Buffer.concat(this.chunks, this.offset);
  }
}
