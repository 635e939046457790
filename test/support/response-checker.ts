import { at, pointerSegment, type DocumentValidator } from './document-validator.js';

/** What a live response is checked on. */
export interface ObservedResponse {
  readonly path: string;
  readonly method: string;
  readonly status: number;
  readonly headers: Headers;
  /** The parsed JSON body (problem or envelope); undefined for a binary body, which is not checked. */
  readonly body?: unknown;
}

/**
 * Checks one response against the document: the status is listed for the operation, every
 * required header is present and every documented header present matches its schema, the media
 * type is one the response lists, and a JSON body validates against that media type's schema.
 * Returns the problems found (empty when the response conforms).
 */
export function checkResponse(document: Record<string, unknown>, validator: DocumentValidator, observed: ObservedResponse): string[] {
  const operationPointer = `/paths/${pointerSegment(observed.path)}/${observed.method.toLowerCase()}`;
  if (at(document, operationPointer) === undefined) return [`no operation ${observed.method} ${observed.path}`];
  let responsePointer = `${operationPointer}/responses/${observed.status}`;
  const listed = at(document, responsePointer) as { $ref?: string } | undefined;
  if (listed === undefined) return [`status ${observed.status} is not listed for ${observed.method} ${observed.path}`];
  if (listed.$ref !== undefined) responsePointer = listed.$ref.slice(1);

  const problems: string[] = [];
  const headers = (at(document, `${responsePointer}/headers`) ?? {}) as Record<string, { $ref?: string }>;
  for (const [name, entry] of Object.entries(headers)) {
    const headerPointer = entry.$ref !== undefined ? entry.$ref.slice(1) : `${responsePointer}/headers/${pointerSegment(name)}`;
    const header = at(document, headerPointer) as { required?: boolean; schema?: { type?: string } };
    const value = observed.headers.get(name);
    if (value === null) {
      if (header.required === true) problems.push(`required header ${name} is missing`);
      continue;
    }
    const typed = header.schema?.type === 'integer' ? Number(value) : value;
    problems.push(...validator.errorsAt(`${headerPointer}/schema`, typed).map((error) => `header ${name}: ${error}`));
  }

  const mediaType = (observed.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const schemaPointer = `${responsePointer}/content/${pointerSegment(mediaType)}/schema`;
  if (at(document, schemaPointer) === undefined) {
    problems.push(`media type "${mediaType}" is not listed for status ${observed.status}`);
    return problems;
  }
  if (observed.body !== undefined) {
    problems.push(...validator.errorsAt(schemaPointer, observed.body).map((error) => `body: ${error}`));
  }
  return problems;
}
