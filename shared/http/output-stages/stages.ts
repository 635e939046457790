import type { Format } from '../../model/operation-contract.js';
import type { OutputStage } from './output-stage.js';
import { respondJson } from './respond-json.js';
import { respondParquet } from './respond-parquet.js';

/** What answers one format: its output stage, and whether its requests are pages (else an export, which refuses `page` and `pageSize`). */
export interface FormatStage {
  readonly paged: boolean;
  readonly respond: OutputStage;
}

/** The stage of each format. */
export const OUTPUT_STAGES: Readonly<Record<Format, FormatStage>> = Object.freeze({
  json: { paged: true, respond: respondJson },
  parquet: { paged: false, respond: respondParquet },
});
