/**
 * The error registry: every `code` the service answers with, its HTTP status and its title.
 * `docs/errors.md` and the README's table are kept in step with this by a test.
 */
export const ERROR_CODES = {
  MALFORMED_REQUEST: { status: 400, title: 'Malformed HTTP request' },
  INVALID_JSON: { status: 400, title: 'The request body is not valid JSON' },
  INVALID_BODY: { status: 400, title: 'The request body is not a JSON object of filters' },
  UNKNOWN_FILTER: { status: 400, title: 'Unknown filter' },
  INVALID_FILTER: { status: 400, title: 'Invalid filter value' },
  INVALID_DATE: { status: 400, title: 'Invalid date' },
  DATE_RANGE_INCOMPLETE: { status: 400, title: 'Date range needs both ends' },
  DATE_RANGE_REVERSED: { status: 400, title: 'Date range is reversed' },
  DATE_RANGE_TOO_LONG: { status: 400, title: 'Date range is longer than one month' },
  INVALID_ORDER_BY: { status: 400, title: 'Invalid orderBy' },
  PAGE_SIZE_TOO_LARGE: { status: 400, title: 'Page size too large' },
  RESULT_WINDOW_EXCEEDED: { status: 400, title: 'Result window exceeded' },
  PAGINATION_NOT_ALLOWED: { status: 400, title: 'Pagination is not allowed with Parquet' },
  INVALID_PRECONDITION: { status: 400, title: 'Invalid If-None-Match' },
  INVALID_DELTA_TOKEN: { status: 400, title: 'Not a delta token' },
  INVALID_TOKEN: { status: 401, title: 'Invalid or missing access token' },
  INVALID_API_KEY: { status: 401, title: 'Invalid or missing API key' },
  INVALID_SUBSCRIPTION_KEY: { status: 401, title: 'Invalid or missing subscription key' },
  MISSING_ROLE: { status: 403, title: 'Missing required app role' },
  CLIENT_NOT_REGISTERED: { status: 403, title: 'Client not registered' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  NOT_ACCEPTABLE: { status: 406, title: 'Not acceptable' },
  EXPORT_VIEW_CHANGED: { status: 409, title: 'Your view changed since the export job started' },
  DELTA_VIEW_CHANGED: { status: 409, title: 'Your view changed since the delta token was given' },
  DELTA_FILTERS_CHANGED: { status: 409, title: 'The delta token was given for other filters' },
  DELTA_TOKEN_NOT_FOUND: { status: 410, title: 'Delta token not found' },
  DELTA_TOKEN_EXPIRED: { status: 410, title: 'Delta token expired' },
  DELTA_PAGE_NOT_FOUND: { status: 410, title: 'Delta page not found' },
  REQUEST_TOO_LARGE: { status: 413, title: 'Request body too large' },
  RESULT_TOO_LARGE: { status: 413, title: 'Result too large for one Parquet export' },
  RESULT_UNCHANGED: { status: 412, title: 'Result unchanged since the ETag sent' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request headers too large' },
  RATE_LIMITED: { status: 429, title: 'Too many requests' },
  TOO_MANY_EXPORT_JOBS: { status: 429, title: 'Too many export jobs running' },
  INTERNAL: { status: 500, title: 'Internal error' },
  EXPORT_WINDOW_FAILED: { status: 500, title: 'A window of the export job failed' },
  STORE_UNAVAILABLE: { status: 503, title: 'Data store unavailable' },
  IDENTITY_UNAVAILABLE: { status: 503, title: 'Identity provider unavailable' },
  EXPORTS_BUSY: { status: 503, title: 'Too many exports in progress' },
  STORAGE_UNAVAILABLE: { status: 503, title: 'Export storage unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

/** A stable error code. */
export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * Codes only the export job operations answer (docs/api.md, "Export jobs"); the summary operations
 * never do. EXPORT_WINDOW_FAILED is no answer at all: it is the problem of a failed window in a manifest.
 */
export const EXPORT_JOB_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['EXPORT_VIEW_CHANGED', 'TOO_MANY_EXPORT_JOBS', 'STORAGE_UNAVAILABLE', 'EXPORT_WINDOW_FAILED']);

/** Codes only the delta operations answer (docs/api.md, "Deltas"); the summary operations never do. */
export const DELTA_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['INVALID_DELTA_TOKEN', 'DELTA_VIEW_CHANGED', 'DELTA_FILTERS_CHANGED', 'DELTA_TOKEN_NOT_FOUND', 'DELTA_TOKEN_EXPIRED', 'DELTA_PAGE_NOT_FOUND']);
