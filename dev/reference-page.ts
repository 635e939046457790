import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OPENAPI_FILE } from '../openapi/build-openapi.js';

/** Where the local stack serves the API reference. */
export const REFERENCE_PATH = '/docs';

/** Where the page asks for a token: relayed to the local identity provider (see referencePage). */
const TOKEN_RELAY_PATH = `${REFERENCE_PATH}/token`;

// Swagger UI from npm (swagger-ui-dist: the project's own prebuilt bundle, no dependencies), served
// from node_modules so the page needs nothing but this server: no CDN, no font or validator calls.
const swaggerUi = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
// Compiled to dist/dev/: the repository root is two levels up.
const root = fileURLToPath(new URL('../../', import.meta.url));

/** The most a token request relayed to the identity provider may carry. */
const MAX_TOKEN_REQUEST_BYTES = 16 * 1024;

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

/**
 * What the page may load, run and call: its own origin only (the page has no inline script;
 * Swagger UI sets inline styles), never framed. Its calls go to its own origin too: the operations
 * are served there, and so is the token relay.
 */
const CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
  + "connect-src 'self'; font-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** What the local stack tells its reference page, so that Execute works against it as served. */
export interface ReferenceStack {
  /** The port the service listens on: the page's own origin is a loopback name with it. */
  readonly port: number;
  /** The identity provider's token endpoint, where the relay sends the page's token requests. */
  readonly tokenUrl: string;
  /** The scope of the service's tokens (`api://<app id>/.default`). */
  readonly scope: string;
  /** The dev credentials the page is filled in with (fake, dev only: dev/identities.json). */
  readonly client: { readonly id: string; readonly secret: string };
  readonly subscriptionKey: string;
  readonly apiKey: string;
}

interface Asset { readonly type: string; readonly body: (origin: string) => string | Buffer }

/**
 * Serves the API reference of `openapi/openapi.json` at `/docs` (a local convenience of `npm start`;
 * in Azure the developer portal of API Management shows the committed document, untouched).
 * Locally the document is served for this stack: its server is the page's own origin (whatever
 * PORT), its token URL the relay at `/docs/token` (which passes a client-credentials request on to
 * the local identity provider, so that the page needs no CORS from it and the browser no trust in
 * the local CA), a pasted token is a second way in, and the dev client's credentials and keys are
 * filled in. The handler answers true when the request was for the reference and is answered.
 */
export function referencePage(stack: ReferenceStack): (request: IncomingMessage, response: ServerResponse) => boolean {
  const assets: Record<string, Asset> = {
    '': { type: 'text/html; charset=utf-8', body: () => PAGE },
    '/': { type: 'text/html; charset=utf-8', body: () => PAGE },
    '/reference.js': { type: 'text/javascript; charset=utf-8', body: () => initScript(stack) },
    '/swagger-ui.css': { type: 'text/css; charset=utf-8', body: () => readFileSync(join(swaggerUi, 'swagger-ui.css')) },
    '/swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', body: () => readFileSync(join(swaggerUi, 'swagger-ui-bundle.js')) },
    // Read on every request, so `npm run openapi` shows up on a reload.
    '/openapi.json': { type: 'application/json', body: (origin) => JSON.stringify(forThisStack(JSON.parse(readFileSync(join(root, OPENAPI_FILE), 'utf8')) as OpenApi, origin, stack)) },
  };
  return (request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const scheme = (request.socket as TLSSocket).encrypted ? 'https' : 'http';
    if ((path === REFERENCE_PATH || path.startsWith(`${REFERENCE_PATH}/`)) && !isLoopbackHost(request.headers.host, scheme, stack.port)) {
      // Only for this machine's names: a page elsewhere that rebinds its own name to 127.0.0.1
      // would otherwise read the filled-in dev credentials, or get tokens through the relay.
      response.writeHead(421, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' }).end('The reference is served to 127.0.0.1, localhost and [::1] only.\n');
      return true;
    }
    if (path === TOKEN_RELAY_PATH && request.method === 'POST') {
      void relayToken(request, response, stack.tokenUrl);
      return true;
    }
    if (path !== REFERENCE_PATH && !path.startsWith(`${REFERENCE_PATH}/`)) return false;
    const asset = assets[path.slice(REFERENCE_PATH.length)];
    if (!asset || (request.method !== 'GET' && request.method !== 'HEAD')) return false;
    // The page's own origin (its Host is a loopback name, checked above): its calls stay 'self'.
    const body = asset.body(new URL(`${scheme}://${request.headers.host!}`).origin);
    response.writeHead(200, {
      'content-type': asset.type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff',
      'content-security-policy': CONTENT_SECURITY_POLICY, 'referrer-policy': 'no-referrer',
    });
    response.end(request.method === 'HEAD' ? undefined : body);
    return true;
  };
}

/** Whether a Host header names this machine (127.0.0.1, localhost, [::1]) on the stack's port. */
function isLoopbackHost(host: string | undefined, scheme: string, port: number): boolean {
  if (host === undefined) return false;
  try {
    const url = new URL(`${scheme}://${host}`);
    return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) && Number(url.port || (scheme === 'https' ? 443 : 80)) === port;
  } catch {
    return false;
  }
}

type Parameter = { in?: string; example?: unknown; examples?: unknown; schema?: { default?: unknown } };
type OpenApi = {
  paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
  servers: { variables: { base_url: { default: string } } }[];
  security: Record<string, string[]>[];
  components: { parameters?: Record<string, Parameter>; securitySchemes: Record<string, { flows?: { clientCredentials: { tokenUrl: string; scopes: Record<string, string> } } } & Record<string, unknown>> };
};

/** The committed document as this stack serves it (see referencePage). */
function forThisStack(document: OpenApi, origin: string, stack: ReferenceStack): OpenApi {
  document.servers[0]!.variables.base_url.default = `${origin}/api`;
  const schemes = document.components.securitySchemes;
  const flow = schemes.accessToken!.flows!.clientCredentials;
  flow.tokenUrl = `${origin}${TOKEN_RELAY_PATH}`;
  flow.scopes = { [stack.scope]: Object.values(flow.scopes)[0] ?? 'Read the summary data of your tenant.' };
  schemes.pastedToken = {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'An access token you already have (the access_token of a token response, without "Bearer "): instead of accessToken.',
  };
  document.security = [
    { accessToken: [stack.scope], subscriptionKey: [], apiKey: [] },
    { pastedToken: [], subscriptionKey: [], apiKey: [] },
  ];
  // Swagger UI fills a parameter in from its default or example and sends it: page=1&pageSize=25
  // would make every export 400 PAGINATION_NOT_ALLOWED, an example If-None-Match a conditional
  // request. The body's examples stay; the parameters start empty (their defaults are the service's).
  const parameters = [...Object.values(document.components.parameters ?? {}), ...Object.values(document.paths).flatMap((item) => Object.values(item).flatMap((operation) => operation.parameters ?? []))];
  for (const parameter of parameters) {
    delete parameter.example;
    delete parameter.examples;
    if (parameter.schema) delete parameter.schema.default;
  }
  return document;
}

/** Swagger UI, started with the dev client's credentials and the two keys filled in. */
function initScript(stack: ReferenceStack): string {
  // validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io.
  return `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(`${REFERENCE_PATH}/openapi.json`)},
  dom_id: '#reference',
  validatorUrl: null,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  persistAuthorization: false,
  onComplete: function () {
    window.ui.preauthorizeApiKey('subscriptionKey', ${JSON.stringify(stack.subscriptionKey)});
    window.ui.preauthorizeApiKey('apiKey', ${JSON.stringify(stack.apiKey)});
  },
});
window.ui.initOAuth({ clientId: ${JSON.stringify(stack.client.id)}, clientSecret: ${JSON.stringify(stack.client.secret)}, scopes: [${JSON.stringify(stack.scope)}] });
`;
}

/**
 * Passes a client-credentials token request of the page on to the identity provider and its
 * answer back: form bodies only, at most 16 KiB, to the one token URL of this stack.
 */
async function relayToken(request: IncomingMessage, response: ServerResponse, tokenUrl: string): Promise<void> {
  const answer = (status: number, type: string, body: string): void => {
    response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'x-content-type-options': 'nosniff' }).end(body);
  };
  try {
    if (!(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      return answer(415, 'application/json', JSON.stringify({ error: 'invalid_request', error_description: 'Send the token request as application/x-www-form-urlencoded.' }));
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request) {
      size += (chunk as Buffer).byteLength;
      if (size > MAX_TOKEN_REQUEST_BYTES) return answer(413, 'application/json', JSON.stringify({ error: 'invalid_request', error_description: 'The token request is too large.' }));
      chunks.push(chunk as Buffer);
    }
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (typeof request.headers.authorization === 'string') headers.authorization = request.headers.authorization;
    const token = await fetch(tokenUrl, { method: 'POST', headers, body: Buffer.concat(chunks), redirect: 'error', signal: AbortSignal.timeout(10_000) });
    answer(token.status, token.headers.get('content-type') ?? 'application/json', await token.text());
  } catch {
    if (!response.headersSent) answer(502, 'application/json', JSON.stringify({ error: 'temporarily_unavailable', error_description: 'The local identity provider did not answer.' }));
  }
}
