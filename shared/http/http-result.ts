/** What a handler answers: status, headers, a complete body, and the record count for the log. */
export interface HttpResult {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string | Uint8Array;
  readonly records: number;
}
