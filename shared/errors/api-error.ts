import { ERROR_CODES, type ErrorCode } from './error-codes.js';

/** One problem with one member of the request, as listed in a problem's `errors`. */
export interface FieldError {
  /** The request member at fault (a filter name, or `body`). */
  readonly member: string;
  readonly code: ErrorCode;
  /** What was wrong and how to fix it. */
  readonly message: string;
}

/** The most characters of a request-provided name or value an error quotes back. */
export const MAX_ECHO = 64;

/** Control and format characters (bidi overrides, zero-width ones, tags), line and paragraph separators, and lone surrogates. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|\p{Cs}/gu;

/**
 * A name or value from the request as an error quotes it: cut to MAX_ECHO characters, so an error
 * answer never amplifies its input (a 60 kB member name once came back three times), and with
 * every control, bidi or zero-width character written as its `\u` escape, so that what a client
 * prints shows what was sent and cannot reorder or hide the rest of the message.
 */
export function echo(text: string): string {
  const cut = text.length <= MAX_ECHO ? text : `${text.slice(0, MAX_ECHO - 1)}…`;
  return cut.replace(UNPRINTABLE, (character) => {
    const code = character.codePointAt(0)!;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** Extra response headers an error needs (`WWW-Authenticate`, `Retry-After`, `Allow`). */
export type ErrorHeaders = Readonly<Record<string, string>>;

/**
 * The one error type the request pipeline answers with. Anything else that reaches the pipeline is
 * a bug and becomes a 500 `INTERNAL` without details.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors: readonly FieldError[];
  readonly headers: ErrorHeaders;
  /** A short, stable reason beside the code, for the log line (why a token was refused). */
  readonly reason: string | undefined;

  constructor(code: ErrorCode, detail: string, options: { errors?: readonly FieldError[]; headers?: ErrorHeaders; cause?: unknown; reason?: string } = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.errors = options.errors ?? [];
    this.headers = options.headers ?? {};
    this.reason = options.reason;
  }

  /** A 400 built from validation problems; the first problem's code becomes the error's code. */
  static fromFieldErrors(errors: readonly [FieldError, ...FieldError[]]): ApiError {
    const [first] = errors;
    const detail = errors.length === 1 ? first.message : `${errors.length} problems with the request; see errors.`;
    return new ApiError(first.code, detail, { errors });
  }
}

/**
 * What a fault was, for a warning in the log: an ApiError's code and reason (`STORE_UNAVAILABLE
 * (store 429)`), another error's name; never its message, which may name keys or documents.
 */
export function faultName(error: unknown): string {
  if (error instanceof ApiError) return error.reason === undefined ? error.code : `${error.code} (${error.reason})`;
  return error instanceof Error ? error.name : 'unknown';
}
