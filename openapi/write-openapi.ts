// `npm run openapi`: writes the OpenAPI document generated from the code to openapi/openapi.json.
// A test fails while the committed file differs from what the code generates.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApi, OPENAPI_FILE } from './build-openapi.js';

// Compiled to dist/openapi/, so the repository root is two levels up.
const target = fileURLToPath(new URL(`../../${OPENAPI_FILE}`, import.meta.url));
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, `${JSON.stringify(buildOpenApi(), null, 2)}\n`);
console.log(`wrote ${OPENAPI_FILE}`);
