import { ByteWriter } from 'hyparquet-writer';
import { OutputLimitExceeded } from '../output-limit-exceeded.js';

/** Appends from this size on are kept as chunks of their own. */
const LARGE_APPEND = 64 * 1024;

/**
 * A Parquet byte sink that moves finished bytes into chunks at every flush (after each row group)
 * and fails as soon as more than `limit` bytes have been written, so an export stops reading the
 * store once the limit is certain to be exceeded. It holds at most the limit plus one row group
 * (the table writer holds the row groups still being encoded).
 * A large append (a whole row group) becomes a chunk of its own: copied once, not into the
 * buffer and out again.
 */
export class LimitedByteWriter extends ByteWriter {
  private readonly chunks: Uint8Array[] = [];

  constructor(private readonly limit: number) {
    super(64 * 1024);
  }

  override appendBytes(value: Uint8Array): void {
    if (value.byteLength < LARGE_APPEND) {
      super.appendBytes(value);
      return;
    }
    this.moveBuffered();
    this.chunks.push(value.slice());
    this.offset += value.byteLength;
  }

  /** Called by the Parquet writer after each row group. */
  flush(): void {
    this.moveBuffered();
    this.check();
  }

  private moveBuffered(): void {
    if (this.index > 0) {
      this.chunks.push(new Uint8Array(this.buffer.slice(0, this.index)));
      this.index = 0;
    }
  }

  override finish(): void {
    this.flush();
  }

  /** Throws OutputLimitExceeded when more than the limit has been written. */
  private check(): void {
    if (this.offset > this.limit) throw new OutputLimitExceeded(`output passed ${this.limit} bytes`);
  }

  /** Everything written, in order, as the chunks it was kept in (after `finish`). */
  parts(): readonly Uint8Array[] {
    return this.chunks;
  }
}
