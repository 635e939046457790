import { describe, expect, it } from '@jest/globals';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPI } from 'openapi-types';
import { buildOpenApi } from '../../../openapi/build-openapi.js';
import { at, createDocumentValidator, pointerSegment } from '../../support/document-validator.js';

/** The parts of the document the breaking tests reach into. */
interface Broken {
  components: {
    securitySchemes: Record<string, { name?: string }>;
    parameters: Record<string, { in: string }>;
    schemas: Record<string, { properties: Record<string, unknown> }>;
  };
}

// swagger-parser dereferences the object it validates in place, so each run gets its own copy.
const fresh = () => structuredClone(buildOpenApi()) as unknown as OpenAPI.Document;

/** JSON Pointers of every schema in the document that is not only a `$ref`. */
function schemaPointers(document: Record<string, unknown>): string[] {
  const pointers: string[] = [];
  const visit = (node: unknown, pointer: string) => {
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      const child = `${pointer}/${pointerSegment(key)}`;
      if (key === 'schema' || pointer === '/components/schemas') pointers.push(child);
      else visit(value, child);
    }
  };
  visit(document, '');
  return pointers;
}

describe('the OpenAPI document', () => {
  it('passes swagger-parser validation as OpenAPI 3.1', async () => {
    const api = await SwaggerParser.validate(fresh());
    expect((api as { openapi?: string }).openapi).toBe('3.1.0');
  });

  it.each([
    ['an apiKey scheme without its header name', (api: Broken) => { delete api.components.securitySchemes.apiKey!.name; }, /securitySchemes/],
    ['a parameter in the body (OpenAPI 2 style)', (api: Broken) => { api.components.parameters['X-Request-ID']!.in = 'body'; }, /parameters/],
    ['a reference to a schema that does not exist', (api: Broken) => { api.components.schemas.ContractsEnvelope!.properties.meta = { $ref: '#/components/schemas/Nope' }; }, /Nope/],
  ])('is rejected by the validator with %s (the check can fail)', async (_what, breakIt, message) => {
    const api = fresh() as unknown as Broken;
    breakIt(api);
    await expect(SwaggerParser.validate(api as unknown as OpenAPI.Document)).rejects.toThrow(message);
  });

  it('has only schemas that compile under JSON Schema 2020-12 in strict mode', () => {
    const document = buildOpenApi() as Record<string, unknown>;
    const validator = createDocumentValidator(document);
    const pointers = schemaPointers(document);
    expect(pointers.length).toBeGreaterThan(20);
    for (const pointer of pointers) {
      expect(at(document, pointer)).toBeDefined();
      // Compiling happens on first use; an empty object is a cheap instance to trigger it.
      expect(() => validator.errorsAt(pointer, {})).not.toThrow();
    }
  });

  it('refuses a schema with an unknown keyword in strict mode (the compile check can fail)', () => {
    const document = buildOpenApi() as Record<string, unknown>;
    ((document.components as { schemas: Record<string, Record<string, unknown>> }).schemas.Meta!).nulable = true;
    expect(() => createDocumentValidator(document).errorsAt('/components/schemas/Meta', {})).toThrow(/unknown keyword/);
  });
});
