import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { OPENAPI_FILE } from '../../openapi/build-openapi.js';

/** The committed document, as APIM imports it. */
export function committedDocument(): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`../../${OPENAPI_FILE}`, import.meta.url), 'utf8')) as Record<string, unknown>;
}

/** Escapes one JSON Pointer segment (RFC 6901). */
export function pointerSegment(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The value at a JSON Pointer (`/a/b`) in the document, or undefined. */
export function at(document: unknown, pointer: string): unknown {
  let node = document;
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** Validates values against schemas inside an OpenAPI 3.1 document, `$ref`s resolved within it. */
export interface DocumentValidator {
  /** Problems of `value` against the schema at `pointer` (empty when it is valid). */
  errorsAt(pointer: string, value: unknown): string[];
}

// ajv-formats is CommonJS: under NodeNext its default import is module.exports, whose `default` is the plugin.
const addFormats = ajvFormats.default;

const DOCUMENT_ID = 'https://summary-service.invalid/openapi.json';

/**
 * Ajv for JSON Schema 2020-12 (the OpenAPI 3.1 dialect) in strict mode, with the formats the
 * document uses. The document is added whole, so `#/components/...` references resolve; its own
 * top-level members are declared as keywords so strict mode accepts the root, and so is its
 * annotation `x-summary-field`.
 */
export function createDocumentValidator(document: Record<string, unknown>): DocumentValidator {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  ajv.addVocabulary(Object.keys(document));
  // An annotation of the document's own (filter-member-schema.ts: the field a date pair is on), no rule.
  ajv.addKeyword({ keyword: 'x-summary-field', schemaType: 'string' });
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  return {
    errorsAt(pointer, value) {
      const validate = ajv.getSchema(`${DOCUMENT_ID}#${pointer}`);
      if (validate === undefined) return [`no schema at ${pointer}`];
      if (validate(value)) return [];
      return (validate.errors ?? []).map((error: ErrorObject) => `${error.instancePath || '(root)'} ${error.message ?? error.keyword} ${JSON.stringify(error.params)}`);
    },
  };
}
