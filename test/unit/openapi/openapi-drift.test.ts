import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { buildOpenApi, OPENAPI_FILE } from '../../../openapi/build-openapi.js';
import { committedDocument, pointerSegment } from '../../support/document-validator.js';

/** JSON Pointers where two JSON values differ (the first few). */
function differences(a: unknown, b: unknown, pointer = '', found: string[] = []): string[] {
  if (found.length >= 10 || isDeepStrictEqual(a, b)) return found;
  const objects = typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && Array.isArray(a) === Array.isArray(b);
  if (!objects) {
    found.push(pointer || '(root)');
    return found;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    differences((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${pointer}/${pointerSegment(key)}`, found);
  }
  return found;
}

describe('the committed OpenAPI document', () => {
  it('is exactly what the code generates now', () => {
    // The file's JSON as written, so a value the serializer would drop (undefined) also counts as drift.
    const generated = JSON.parse(JSON.stringify(buildOpenApi())) as unknown;
    const drift = differences(committedDocument(), generated);
    if (drift.length > 0) {
      throw new Error(`${OPENAPI_FILE} is out of date with the code; run \`npm run openapi\` and commit it. First differences at: ${drift.join(', ')}`);
    }
  });

  it('is generated deterministically: two builds are identical, byte for byte', () => {
    expect(JSON.stringify(buildOpenApi())).toBe(JSON.stringify(buildOpenApi()));
  });
});
