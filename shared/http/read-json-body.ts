import { ApiError, echo } from '../errors/api-error.js';
import { findDuplicateMember } from './find-duplicate-member.js';
import { PAGINATION_MEMBERS } from '../filters/filter-members.js';

const UTF8 = new TextDecoder('utf-8', { fatal: false });

/** The largest request body accepted. */
export const MAX_BODY_BYTES = 64 * 1024;

/** The parts of a request `readJsonBody` reads. */
export interface BodySource {
  readonly headers: { get(name: string): string | null };
  readonly body: ReadableStream<Uint8Array> | null;
}

/**
 * Reads and parses the JSON body: `undefined` for an empty body (no filters). A non-empty body
 * needs a JSON Content-Type and no Content-Encoding (415); a body over 64 KiB is refused (413) as
 * soon as that is known, from Content-Length or while streaming, before it is parsed.
 */
export async function readJsonBody(request: BodySource): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? 'NaN');
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) throw tooLarge();
  const bytes = await readCapped(request.body);
  if (bytes.length === 0) return undefined;
  // A coded body (gzip, br, …) is not decoded: read as it is, it would be refused as bad JSON, or
  // worse, read wrong.
  const coding = request.headers.get('content-encoding')?.trim().toLowerCase();
  if (coding && coding !== 'identity') {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'A request body with Content-Encoding is not decoded: send the JSON filters uncompressed (they are at most 64 KiB).');
  }
  if (!isJsonContentType(request.headers.get('content-type'))) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the filters as JSON with Content-Type: application/json.');
  }
  const text = UTF8.decode(bytes);
  if (text.trim() === '') return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    throw new ApiError('INVALID_JSON', 'The body is not valid JSON; send a JSON object such as {"createdFrom":"2025-01-01","createdTo":"2025-01-31"}.');
  }
  const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
  if (isObject && [...PAGINATION_MEMBERS].some((member) => typeof (body as Record<string, unknown>)[member] === 'number')) body = withIntegerLiterals(text, body);
  const duplicate = isObject ? findDuplicateMember(text) : undefined;
  if (duplicate !== undefined) {
    throw new ApiError('INVALID_BODY', `The member ${echo(duplicate)} appears more than once in the body; send each member once.`, {
      errors: [{ member: echo(duplicate), code: 'INVALID_BODY', message: `${echo(duplicate)} is given more than once.` }],
    });
  }
  return body;
}

/**
 * The body again, with `page` and `pageSize` kept as their source text unless they are written as
 * JSON integers: 0.99999999999999999, 1.0 or 1e3 parse to whole numbers but are none, and the
 * members' rules then refuse the text. (Parsed a second time only for such a body: a reviver walks
 * the whole document, which nesting too deep for it makes fail; such a body is refused anyway, for
 * its other members.)
 */
function withIntegerLiterals(text: string, parsed: unknown): unknown {
  try {
    return JSON.parse(text, (key: string, value: unknown, context?: { source?: string }) => {
      if (typeof value !== 'number' || !PAGINATION_MEMBERS.has(key)) return value;
      const source = context?.source ?? '';
      return /^-?(0|[1-9][0-9]*)$/.test(source) ? value : source;
    }) as unknown;
  } catch {
    return parsed;
  }
}

function isJsonContentType(value: string | null): boolean {
  if (value === null) return false;
  const [mediaType, ...params] = value.split(';').map((part) => part.trim().toLowerCase());
  const charset = params.find((param) => param.startsWith('charset='))?.slice('charset='.length).replaceAll('"', '');
  return (mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType ?? ''))
    && (charset === undefined || charset === 'utf-8' || charset === 'utf8');
}

async function readCapped(stream: ReadableStream<Uint8Array> | null): Promise<Uint8Array> {
  if (stream === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BODY_BYTES) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return Buffer.concat(chunks, size);
}

function tooLarge(): ApiError {
  return new ApiError('REQUEST_TOO_LARGE', `The body may be at most ${MAX_BODY_BYTES} bytes; filters never need more.`);
}
