import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { HttpResult } from './output-stages/output-stage.js';
import { QUALITY_PATTERN } from './negotiate.js';

/** The content codings the service can send, in order of preference on equal q. */
export type ContentCoding = 'br' | 'gzip' | 'identity';
const PREFERENCE: readonly ContentCoding[] = ['br', 'gzip', 'identity'];

/** Bodies smaller than this are sent as they are: compressing them gains less than it costs. */
export const MIN_COMPRESSED_BYTES = 1024;

/** Media types that are compressed: JSON answers and problem documents. Parquet and zip never are. */
const COMPRESSIBLE = /^application\/(json|problem\+json)(;|$)/;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Picks the content coding from an `Accept-Encoding` header with q-values (RFC 9110 §12.5.3): the
 * available coding with the highest q, `br` before `gzip` before `identity` on ties; `*` stands for
 * every coding not named, identity included; identity is acceptable unless refused by name or by `*`. When nothing
 * acceptable is available the answer is sent as is (identity), as RFC 9110 allows.
 */
export function negotiateEncoding(acceptEncoding: string | null): ContentCoding {
  if (acceptEncoding === null || acceptEncoding.trim() === '') return 'identity';
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.split(';').map((piece) => piece.trim().toLowerCase());
    if (!name) continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split('=').map((piece) => piece.trim());
      if (key === 'q') q = QUALITY_PATTERN.test(value ?? '') ? Number(value) : 0;
    }
    weights.set(name === 'x-gzip' ? 'gzip' : name, q);
  }
  const wildcard = weights.get('*');
  // `*` weighs every coding not named, identity included; identity is acceptable when nothing names it.
  const qualityOf = (coding: ContentCoding) => weights.get(coding) ?? wildcard ?? (coding === 'identity' ? 1 : 0);
  let best: { coding: ContentCoding; q: number } | undefined;
  for (const coding of PREFERENCE) {
    const q = qualityOf(coding);
    if (q > 0 && (best === undefined || q > best.q)) best = { coding, q };
  }
  return best?.coding ?? 'identity';
}

/**
 * The answer in the coding the caller accepts: JSON and problem+json bodies of at least
 * MIN_COMPRESSED_BYTES are compressed with zlib's asynchronous API (on the thread pool, off the
 * event loop) and carry `Content-Encoding`; every JSON answer carries `Vary: Accept-Encoding`.
 * Parquet and zip bodies are never touched: they are compressed already.
 */
export async function compressResponse(result: HttpResult, acceptEncoding: string | null): Promise<HttpResult> {
  if (!COMPRESSIBLE.test(result.headers['Content-Type'] ?? '')) return result;
  // An answer's headers are its own (every stage makes them for it): added to, not copied.
  const { headers } = result;
  headers.Vary = 'Accept-Encoding';
  const body = typeof result.body === 'string' ? Buffer.from(result.body, 'utf8') : result.body;
  const coding = negotiateEncoding(acceptEncoding);
  if (coding === 'identity' || body.byteLength < MIN_COMPRESSED_BYTES) return body === result.body ? result : { ...result, body };
  const compressed = coding === 'br'
    // Quality 4, not the default 11 (tuned for static assets compressed once): this is a request path (docs/performance.md).
    ? await brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength } })
    : await gzipAsync(body, { level: 6 });
  return { ...result, headers: { ...headers, 'Content-Encoding': coding }, body: compressed };
}
