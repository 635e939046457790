// `npm run openapi`, after the document: writes the pull client's datasets.ts and the Python loader's _datasets.py from it.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { OpenAPIV3_1 } from 'openapi-types';
import { OPENAPI_FILE } from './build-openapi.js';
import { CLIENT_DATASETS_FILE, PYTHON_DATASETS_FILE, clientDatasetsSource, pythonDatasetsSource } from './client-datasets.js';

// Compiled to dist/openapi/, so the repository root is two levels up.
const root = new URL('../../', import.meta.url);
const document = JSON.parse(readFileSync(fileURLToPath(new URL(OPENAPI_FILE, root)), 'utf8')) as OpenAPIV3_1.Document;
writeFileSync(fileURLToPath(new URL(CLIENT_DATASETS_FILE, root)), clientDatasetsSource(document));
writeFileSync(fileURLToPath(new URL(PYTHON_DATASETS_FILE, root)), pythonDatasetsSource(document));
console.log(`wrote ${CLIENT_DATASETS_FILE} and ${PYTHON_DATASETS_FILE}`);
