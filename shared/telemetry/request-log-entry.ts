/**
 * The one structured log line written per request. It carries identifiers and figures only:
 * never a token, key, secret, header value or body.
 */
export interface RequestLogEntry {
  readonly requestId: string;
  /** The caller's own X-Request-ID, when it sent a valid one (recorded, never used as our id). */
  readonly clientRequestId: string | null;
  /** `<resource>.summary`; null for a request that matched no operation (404, 405, gateway refusals). */
  readonly operation: string | null;
  readonly clientId: string | null;
  readonly dataTenant: string | null;
  readonly status: number;
  readonly code: string | null;
  /** Why, beside the code, when the code has reasons (a refused token: expired, signature, …). */
  readonly reason: string | null;
  readonly durationMs: number;
  readonly records: number;
  readonly bytes: number;
  /** Documents the store handed over for this request (null when the store was not read). */
  readonly storeDocuments: number | null;
  /** Request charge the store reported (Cosmos RUs), null when the store was not read. */
  readonly requestCharge: number | null;
  /**
   * Present only when stored data did not match its fields: how many records and lines were left
   * out and values answered as null, and the first few by record id and field (never the value).
   */
  readonly malformed?: {
    readonly recordsLeftOut: number;
    readonly linesLeftOut: number;
    readonly nulled: number;
    readonly where: readonly { readonly record: string; readonly field: string }[];
  };
}

/** Where the pipeline writes: one line per request, and unexpected faults (type and stack only). */
export interface RequestLogger {
  request(entry: RequestLogEntry): void;
  fault(requestId: string, error: unknown): void;
  /** Something that degraded an answer without failing it (a cursor store down); never a value, key or secret. */
  warning(requestId: string, message: string): void;
}
