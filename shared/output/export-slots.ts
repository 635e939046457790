/**
 * Bounds how many exports run at once in one instance: each may hold up to PARQUET_MAX_BYTES
 * plus a row group in memory, so the instance's memory is bounded by slots × limit.
 */
export interface ExportSlots {
  /** A release function, or undefined when every slot is taken. */
  tryAcquire(): (() => void) | undefined;
}

/** Creates `count` export slots. */
export function createExportSlots(count: number): ExportSlots {
  let free = count;
  return {
    tryAcquire() {
      if (free === 0) return undefined;
      free--;
      let released = false;
      return () => {
        if (!released) {
          released = true;
          free++;
        }
      };
    },
  };
}
