import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OPENAPI_FILE } from '../openapi/build-openapi.js';

/** Where the local stack serves the API reference. */
export const REFERENCE_PATH = '/docs';

// Swagger UI from npm (swagger-ui-dist: the project's own prebuilt bundle, no dependencies), served
// from node_modules so the page needs nothing but this server: no CDN, no font or validator calls.
const swaggerUi = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
// Compiled to dist/dev/: the repository root is two levels up.
const root = fileURLToPath(new URL('../../', import.meta.url));

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Contracts &amp; Invoices Summary Data Service — API reference</title>
<link rel="stylesheet" href="${REFERENCE_PATH}/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="${REFERENCE_PATH}/swagger-ui-bundle.js"></script>
<script src="${REFERENCE_PATH}/reference.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io.
const INIT = `window.ui = SwaggerUIBundle({
  url: '${REFERENCE_PATH}/openapi.json',
  dom_id: '#reference',
  validatorUrl: null,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
});
`;

/**
 * What the page may load and run: its own files only (the page has no inline script; Swagger UI
 * sets inline styles), never framed, nothing sent elsewhere.
 */
export const CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
  + "connect-src 'self'; font-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

interface Asset { type: string; body: () => string | Buffer }

const ASSETS: Record<string, Asset> = {
  '': { type: 'text/html; charset=utf-8', body: () => PAGE },
  '/': { type: 'text/html; charset=utf-8', body: () => PAGE },
  '/reference.js': { type: 'text/javascript; charset=utf-8', body: () => INIT },
  '/swagger-ui.css': { type: 'text/css; charset=utf-8', body: () => readFileSync(join(swaggerUi, 'swagger-ui.css')) },
  '/swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', body: () => readFileSync(join(swaggerUi, 'swagger-ui-bundle.js')) },
  // Read on every request, so `npm run openapi` shows up on a reload.
  '/openapi.json': { type: 'application/json', body: () => readFileSync(join(root, OPENAPI_FILE)) },
};

/**
 * Serves the API reference of `openapi/openapi.json` at `/docs` (a local convenience of `npm start`;
 * in Azure the developer portal of API Management shows the same document). Answers true when the
 * request was for the reference and has been answered.
 */
export function serveReference(request: IncomingMessage, response: ServerResponse): boolean {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (path !== REFERENCE_PATH && !path.startsWith(`${REFERENCE_PATH}/`)) return false;
  const asset = ASSETS[path.slice(REFERENCE_PATH.length)];
  if (!asset || (request.method !== 'GET' && request.method !== 'HEAD')) return false;
  const body = asset.body();
  response.writeHead(200, {
    'content-type': asset.type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff',
    'content-security-policy': CONTENT_SECURITY_POLICY, 'referrer-policy': 'no-referrer',
  });
  response.end(request.method === 'HEAD' ? undefined : body);
  return true;
}
