import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { DATASETS, MAX_PAGE_SIZE } from '../../client/src/datasets.js';
import { RESOURCES } from '../../shared/model/resources.js';
import { projectRoot } from '../../dev/project-root.js';
import { runChild } from '../support/run-child.js';
import { committedDocument } from '../support/document-validator.js';
import { CLIENT_DATASETS_FILE, PYTHON_DATASETS_FILE, clientDatasetsSource, pythonDatasetsSource } from '../../openapi/client-datasets.js';
import type { OpenAPIV3_1 } from 'openapi-types';

// The client is a package of its own (it could be published without the service), so what it
// knows of the service is generated from, or checked against, openapi/openapi.json.
const root = projectRoot();

describe('the pull client against the API document', () => {
  it('has the types openapi-typescript generates from the committed document (npm run openapi)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-types-'));
    try {
      const out = join(dir, 'api.ts');
      const result = await runChild(process.execPath, [join(root, 'node_modules/openapi-typescript/bin/cli.js'), 'openapi/openapi.json', '--default-non-nullable', 'false', '-o', out], {});
      expect(result.code).toBe(0);
      const committed = readFileSync(join(root, 'client/src/api.ts'), 'utf8');
      if (committed !== readFileSync(out, 'utf8')) throw new Error('client/src/api.ts is out of date with openapi/openapi.json: run `npm run openapi` and commit it');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has the datasets npm run openapi writes from the committed document (client/src/datasets.ts)', () => {
    if (readFileSync(join(root, CLIENT_DATASETS_FILE), 'utf8') !== clientDatasetsSource(committedDocument() as OpenAPIV3_1.Document)) {
      throw new Error(`${CLIENT_DATASETS_FILE} is out of date with openapi/openapi.json: run \`npm run openapi\` and commit it`);
    }
  });

  it('has the datasets npm run openapi writes for the Python loader (python/src/summary_client/_datasets.py)', () => {
    if (readFileSync(join(root, PYTHON_DATASETS_FILE), 'utf8') !== pythonDatasetsSource(committedDocument() as OpenAPIV3_1.Document)) {
      throw new Error(`${PYTHON_DATASETS_FILE} is out of date with openapi/openapi.json: run \`npm run openapi\` and commit it`);
    }
  });

  it('names every operation, export media type and date pair the document has, and no other', () => {
    const document = committedDocument() as { paths: Record<string, { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> }; responses: { 200: { content: Record<string, unknown> } } } }>; components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
    // Every summary operation (the export jobs' paths are no datasets of their own).
    expect(Object.values(DATASETS).map((dataset) => dataset.path).sort()).toEqual(Object.keys(document.paths).filter((path) => path.endsWith('/summary')).sort());
    for (const [name, dataset] of Object.entries(DATASETS)) {
      const operation = document.paths[dataset.path]!.post;
      expect(Object.keys(operation.responses[200].content)).toContain(dataset.exportType);
      const filters = document.components.schemas[operation.requestBody.content['application/json']!.schema.$ref.split('/').at(-1)!]!.properties;
      const pairs = Object.keys(filters).filter((member) => member.endsWith('From')).map((member) => member.slice(0, -'From'.length));
      expect([...dataset.dateBy].sort()).toEqual(pairs.sort());
      const others = Object.keys(filters).filter((member) => !/(From|To)$/.test(member) && !['page', 'pageSize', 'orderBy', 'order'].includes(member));
      expect([...dataset.filters].sort()).toEqual(others.sort());
      expect((filters.pageSize as { maximum?: number }).maximum).toBe(MAX_PAGE_SIZE);
      const resource = RESOURCES.find((candidate) => candidate.name === name)!;
      const shape = resource.export;
      expect(shape.kind === 'zip' ? [shape.records, shape.lines] : null).toEqual(dataset.zipEntries);
    }
  });
});
