import type { StoredRecord } from '../../shared/model/view.js';
import type { RecordStore } from '../../shared/store/record-store.js';

/**
 * A `RecordStore` over pre-built records, shaped as the Cosmos store returns them (visible fields
 * only): it ignores scope and filters, so it measures or tests what happens after the store. Used
 * by the JSON-path benchmark.
 */
export function memoryStore(records: readonly StoredRecord[]): RecordStore {
  return {
    count: async () => records.length,
    list: async (_scope, _query, skip, take) => records.slice(skip, skip + take),
    stream: async function* () {
      yield* records;
    },
  };
}

