/**
 * The headers every answer carries, success or problem: its media type, the request id, and never
 * cached, sniffed or named in a referrer (answers carry tenant data).
 */
export function baseHeaders(contentType: string, requestId: string): Record<string, string> {
  return {
    'Content-Type': contentType,
    'X-Request-ID': requestId,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  };
}
