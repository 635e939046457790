/** The output would exceed its byte limit (PARQUET_MAX_BYTES): answered 413 RESULT_TOO_LARGE. */
export class OutputLimitExceeded extends Error {
  override readonly name = 'OutputLimitExceeded';
}
