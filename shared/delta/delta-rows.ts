/**
 * A delta as rows a loader merges: each changed record as the summary operations answer it
 * (record-cleaner.ts: exactly the view's fields), then one row per removal holding the record's id
 * and `_removed`, why it left (a JSON member; in Parquet a column, null on changed rows, so dlt's
 * `hard_delete` or a deduplicating destination applies it: docs/api.md, "Deltas").
 */
import { KEPT_MEMBER, REMOVAL_REASONS, REMOVED_MEMBER } from '../model/delta-operations.js';
import type { FieldSpec } from '../model/fields.js';
import type { StoredRecord } from '../model/view.js';
import { planCleaning, type CleaningPlan } from '../output/record-cleaner.js';
import type { Delta } from './compute-delta.js';

/**
 * The rows of a delta: its changed records (cleaned as they were given: compute-delta.ts `give`),
 * then its removals, then (a delta started with `since`) a kept row per other record of the view.
 */
export function deltaRows(plan: CleaningPlan, delta: Pick<Delta, 'changed' | 'removed'>, kept: readonly string[] = []): StoredRecord[] {
  const rows: StoredRecord[] = [...delta.changed];
  const idField = plan.view.resource.idField;
  for (const { id, reason } of delta.removed) rows.push({ [idField]: id, [REMOVED_MEMBER]: reason });
  for (const id of kept) rows.push({ [idField]: id, [KEPT_MEMBER]: true });
  return rows;
}

/** The `_removed` column of a delta's Parquet records table. */
const REMOVED_FIELD: FieldSpec = Object.freeze({ name: REMOVED_MEMBER, kind: 'string', nullable: true, values: REMOVAL_REASONS });

/**
 * The cleaning plan of a delta's Parquet records table: the view's fields, each nullable (a
 * removal row holds its id alone), then `_removed`. Its rows are already clean (deltaRows), so
 * it changes nothing; it gives the table its columns.
 */
export function deltaParquetPlan(plan: CleaningPlan): CleaningPlan {
  const { view } = plan;
  return planCleaning({ ...view, fields: [...view.fields.map((field) => ({ ...field, nullable: true })), REMOVED_FIELD] });
}
