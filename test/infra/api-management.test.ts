import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { ERROR_CODES } from '../../shared/errors/error-codes.js';
import { PROBLEM_TYPE_BASE } from '../../shared/errors/problem-response.js';
import {
  INFRA,
  ROOT,
  assignedValue,
  at,
  declaration,
  deployables,
  filesUnder,
  literalString,
  objectExpressionKeys,
  parseBicepFile,
  resourcesOfType,
  stringArgumentsOf,
  throughVariables,
  type BicepFile,
} from './bicep-tree.js';
import { allText, child, findAll, namedValueReferences, parsePolicy, validateXml, type Element } from './policy-xml.js';

const policyFiles = filesUnder(join(INFRA, 'policies'), ['.xml']);
const read = (path: string) => readFileSync(path, 'utf8');
let apiModule: BicepFile;
let main: BicepFile;
let apiPolicy: Element;

beforeAll(async () => {
  apiModule = await parseBicepFile(join(INFRA, 'modules/api-management-api.bicep'));
  main = await parseBicepFile(join(INFRA, 'main.bicep'));
  apiPolicy = parsePolicy(read(join(INFRA, 'policies/summary-api.xml')));
});

/** The policy files loaded by the API module, by the resource type that loads them. */
function loadedPolicies(): Map<string, string> {
  const loaded = new Map<string, string>();
  for (const resource of deployables(apiModule, 'resource_declaration')) {
    const value = at(resource.body, 'properties', 'value');
    const path = value?.type === 'call_expression' && value.childForFieldName('function')?.text === 'loadTextContent'
      ? literalString(value.childForFieldName('arguments')?.namedChildren[0])
      : undefined;
    if (path?.endsWith('.xml')) loaded.set(resource.type.split('@')[0]!, resolve(INFRA, 'modules', path));
  }
  return loaded;
}

/** Names of the named values the API module defines (literal names and the keys of a looped object). */
function definedNamedValues(): string[] {
  return resourcesOfType(apiModule, 'Microsoft.ApiManagement/service/namedValues').flatMap((resource) => {
    const name = literalString(at(resource.body, 'name'));
    if (name !== undefined) return [name];
    const loop = resource.loop?.text.match(/^\[for (\w+) in items\((\w+)\):/);
    if (loop === null || loop === undefined || at(resource.body, 'name')?.text !== `${loop[1]}.key`) {
      throw new Error(`cannot read the name of named value ${resource.symbol}`);
    }
    return objectExpressionKeys(apiModule, assignedValue(declaration(apiModule, 'variable_declaration', loop[2]!)));
  });
}

describe('the policy files', () => {
  it.each(policyFiles.map((path) => [basename(path), path]))('%s is well-formed XML with a <policies> root and all four sections', (_name, path) => {
    expect(validateXml(read(path))).toBe(true);
    const root = parsePolicy(read(path));
    expect(root.name).toBe('policies');
    expect(root.children.map((section) => section.name)).toEqual(['inbound', 'backend', 'outbound', 'on-error']);
  });

  it('reports malformed XML (the check can fail): an unescaped < in a policy expression', () => {
    expect(validateXml('<policies><inbound><set-body>@(a < b)</set-body></inbound></policies>')).not.toBe(true);
  });

  it('are each loaded by the Bicep, and every policy file the Bicep loads exists', () => {
    const loaded = loadedPolicies();
    expect([...loaded.keys()].sort()).toEqual(['Microsoft.ApiManagement/service/apis/policies']);
    expect([...loaded.values()].sort()).toEqual(policyFiles);
  });

  it('refer only to named values the Bicep defines', () => {
    const defined = definedNamedValues();
    expect(defined).toEqual(expect.arrayContaining(['summary-function-key', 'summary-function-key-uat', 'entra-tenant-id']));
    const used = policyFiles.flatMap((path) => namedValueReferences(read(path)));
    expect(used.length).toBeGreaterThan(5);
    expect([...new Set(used.filter((name) => !defined.includes(name)))]).toEqual([]);
  });

  it('route only to backends the Bicep defines', () => {
    const backends = resourcesOfType(apiModule, 'Microsoft.ApiManagement/service/backends').map((resource) => literalString(at(resource.body, 'name')));
    const used = findAll(apiPolicy, 'set-backend-service').map((element) => element.attributes['backend-id']);
    expect(used.sort()).toEqual(['summary-function-app', 'summary-function-app-uat']);
    expect(used.filter((id) => !backends.includes(id))).toEqual([]);
  });
});

describe('the API policy', () => {
  it('validates the Entra ID token: tenant keys and issuer, this API as audience, the Data.Read role', () => {
    const [jwt, ...others] = findAll(child(apiPolicy, 'inbound'), 'validate-jwt');
    expect(others).toEqual([]);
    expect(jwt!.attributes).toMatchObject({ 'header-name': 'Authorization', 'require-scheme': 'Bearer', 'require-signed-tokens': 'true', 'require-expiration-time': 'true' });
    expect(child(jwt!, 'openid-config').attributes.url).toBe('{{entra-authority-host}}/{{entra-tenant-id}}/v2.0/.well-known/openid-configuration');
    expect(findAll(jwt!, 'issuer').map((issuer) => issuer.text)).toEqual(['{{entra-authority-host}}/{{entra-tenant-id}}/v2.0']);
    expect(findAll(jwt!, 'audience').map((audience) => audience.text)).toEqual(['{{summary-api-app-id}}', 'api://{{summary-api-app-id}}']);
    const [roles] = findAll(jwt!, 'claim');
    expect(roles!.attributes).toEqual({ name: 'roles', match: 'any' });
    expect(roles!.children.map((value) => value.text)).toEqual(['Data.Read']);
  });

  it('refuses a subscription key in the query string before anything else, and removes the header key before forwarding', () => {
    const inbound = child(apiPolicy, 'inbound');
    const [first] = inbound.children.filter((element) => element.name !== 'base');
    expect(first?.name).toBe('choose');
    const refusal = first!.children[0]!;
    expect(refusal.attributes.condition).toBe('@(context.Request.Url.Query.ContainsKey("subscription-key"))');
    expect(allText(child(child(refusal, 'return-response'), 'set-body'))).toContain('"INVALID_SUBSCRIPTION_KEY"');
    expect(findAll(inbound, 'set-header').filter((header) => header.attributes.name === 'Ocp-Apim-Subscription-Key').map((header) => header.attributes['exists-action'])).toEqual(['delete']);
    expect(findAll(inbound, 'set-query-parameter')).toEqual([]);
  });

  it('requires an app-only token (idtyp app) and answers one without it as the service does, 401 INVALID_TOKEN', () => {
    const inbound = child(apiPolicy, 'inbound');
    const names = inbound.children.map((element) => element.name);
    const check = inbound.children[names.indexOf('validate-jwt') + 1]!;
    expect(check.name).toBe('choose');
    expect(check.children[0]!.attributes.condition).toBe('@(((Jwt)context.Variables["jwt"]).Claims.GetValueOrDefault("idtyp", "") != "app")');
    const body = allText(child(child(check.children[0]!, 'return-response'), 'set-body'));
    expect(body).toContain('"INVALID_TOKEN"');
    expect(body).toContain('new JProperty("status", 401)');
  });

  it('rate-limits per subscription and client application, after the token is validated', () => {
    const inbound = child(apiPolicy, 'inbound');
    const names = inbound.children.map((element) => element.attributes.name ?? element.name);
    const limits = findAll(apiPolicy, 'rate-limit-by-key').filter((candidate) => candidate.attributes['increment-condition'] === undefined);
    expect(limits).toHaveLength(1);
    const limit = limits[0];
    expect(inbound.children.indexOf(limit!)).toBeGreaterThan(names.indexOf('validate-jwt'));
    expect(limit!.attributes['counter-key']).toBe('@((string)context.Variables["client"])');
    expect(limit!.attributes.calls).toBe('{{rate-limit-calls}}');
    const client = inbound.children.find((element) => element.attributes.name === 'client')!;
    expect(client.attributes.value).toBe('@(context.Subscription.Id + "/" + ((Jwt)context.Variables["jwt"]).Claims.GetValueOrDefault("azp", ""))');
    expect(names.indexOf('client')).toBeGreaterThan(names.indexOf('validate-jwt'));
  });

  it('sends a function key from a named value as x-functions-key on every route to a backend', () => {
    const branches = findAll(child(apiPolicy, 'inbound'), 'choose').filter((choose) => findAll(choose, 'set-backend-service').length > 0).flatMap((choose) => choose.children);
    expect(branches.length).toBe(2);
    for (const branch of branches) {
      expect(findAll(branch, 'set-backend-service')).toHaveLength(1);
      const keys = findAll(branch, 'set-header').filter((header) => header.attributes.name === 'x-functions-key');
      expect(keys.map((header) => allText(header))).toEqual([expect.stringMatching(/^\{\{summary-function-key(-uat)?\}\}$/)]);
    }
  });

  it('sets X-Request-ID to the gateway\'s own id always, passes a valid caller id on as X-Client-Request-ID, and returns both', () => {
    const inbound = child(apiPolicy, 'inbound');
    const variable = (name: string) => findAll(inbound, 'set-variable').find((candidate) => candidate.attributes.name === name);
    expect(variable('requestId')?.attributes.value).toBe('@(context.RequestId.ToString())');
    expect(variable('clientRequestId')?.attributes.value).toContain('^[A-Za-z0-9._:-]{1,128}$');
    expect(variable('clientRequestId')?.attributes.value).toContain('GetValueOrDefault("X-Request-ID"');
    const headersNamed = (section: string, name: string) => findAll(child(apiPolicy, section), 'set-header').filter((header) => header.attributes.name === name);
    // One for the forwarded request, and one in each of the three answers given in inbound.
    expect(headersNamed('inbound', 'X-Request-ID')).toHaveLength(4);
    expect(headersNamed('inbound', 'X-Client-Request-ID').map((header) => header.attributes['exists-action'])).toEqual(['delete', 'override']);
    expect(headersNamed('outbound', 'X-Request-ID')).toHaveLength(1);
    expect(headersNamed('outbound', 'X-Client-Request-ID')).toHaveLength(1);
    const onError = child(apiPolicy, 'on-error');
    expect(findAll(onError, 'set-variable').find((candidate) => candidate.attributes.name === 'requestId')?.attributes.value).toBe('@(context.RequestId.ToString())');
    for (const response of findAll(onError, 'return-response')) {
      expect(findAll(response, 'set-header').some((header) => header.attributes.name === 'X-Request-ID')).toBe(true);
    }
    expect(onError.children.at(-1)?.attributes).toEqual({ name: 'X-Request-ID', 'exists-action': 'skip' });
  });

  it('answers its own errors as problem documents with the service\'s codes, statuses, titles and type URIs', () => {
    const responses = findAll(child(apiPolicy, 'on-error'), 'return-response');
    expect(responses.length).toBe(4);
    // Answered in inbound: the query-string key, a token that is not app-only, a subscription of another client.
    const inboundResponses = findAll(child(apiPolicy, 'inbound'), 'return-response');
    expect(inboundResponses).toHaveLength(3);
    const codes = [...responses, ...inboundResponses].map((response) => {
      const body = allText(child(response, 'set-body'));
      const field = (name: string) => body.match(new RegExp(`new JProperty\\("${name}", "?([^")]+)"?\\)`))?.[1];
      const code = field('code')!;
      const registered = ERROR_CODES[code as keyof typeof ERROR_CODES];
      expect({ code, status: Number(field('status')), title: field('title') }).toEqual({ code, status: registered?.status, title: registered?.title });
      expect(field('type')).toBe(PROBLEM_TYPE_BASE + code.toLowerCase().replaceAll('_', '-'));
      expect(child(response, 'set-status').attributes.code).toBe(String(registered?.status));
      expect(findAll(response, 'set-header').find((header) => header.attributes.name === 'Content-Type')?.children[0]?.text).toBe('application/problem+json');
      return code;
    });
    expect(codes).toEqual(['INVALID_SUBSCRIPTION_KEY', 'MISSING_ROLE', 'INVALID_TOKEN', 'RATE_LIMITED', 'INVALID_SUBSCRIPTION_KEY', 'INVALID_TOKEN', 'INVALID_SUBSCRIPTION_KEY']);
  });

  it('counts answers 401 (bad or missing tokens) per subscription before the token is read, answered 429 RATE_LIMITED past the limit', () => {
    const inbound = child(apiPolicy, 'inbound');
    const [badTokens, ...others] = findAll(inbound, 'rate-limit-by-key').filter((candidate) => candidate.attributes['increment-condition'] !== undefined);
    expect(others).toEqual([]);
    expect(badTokens!.attributes['increment-condition']).toBe('@(context.Response.StatusCode == 401)');
    expect(badTokens!.attributes['counter-key']).toContain('context.Subscription.Id');
    expect(badTokens!.attributes['counter-key']).not.toContain('jwt');
    expect(Number(badTokens!.attributes.calls)).toBeGreaterThan(0);
    const [jwt] = findAll(inbound, 'validate-jwt');
    expect(inbound.children.indexOf(badTokens!)).toBeLessThan(inbound.children.indexOf(jwt!));
    // Exceeding it raises RateLimitExceeded, which on-error answers as the service's RATE_LIMITED.
    expect(findAll(child(apiPolicy, 'on-error'), 'when').some((when) => when.attributes.condition?.includes('RateLimitExceeded') && allText(when).includes('"RATE_LIMITED"'))).toBe(true);
  });

  it('binds each subscription to its client: a token of another client is refused before anything is counted or forwarded', () => {
    const inbound = child(apiPolicy, 'inbound');
    const binding = findAll(inbound, 'when').find((when) => when.attributes.condition?.includes('"client-" + azp'))!;
    const condition = binding.attributes.condition!;
    // The names the Bicep gives the subscriptions: client-<client id> and uat-<client id>.
    const subscriptionNames = [...read(join(INFRA, 'modules/api-management-api.bicep')).matchAll(/name: '(\w+)-\$\{client\.key\}'/g)].map((match) => match[1]!).sort();
    expect(subscriptionNames).toEqual(['client', 'uat']);
    for (const prefix of subscriptionNames) expect(condition).toContain(`string.Equals(subscription, "${prefix}-" + azp, StringComparison.OrdinalIgnoreCase)`);
    expect(condition).toContain('azp == "" ||');
    expect(allText(child(binding, 'return-response'))).toContain('"INVALID_SUBSCRIPTION_KEY"');
    const position = (element: Element) => inbound.children.indexOf(element);
    const chooseOfBinding = inbound.children.find((element) => element.name === 'choose' && findAll(element, 'when').includes(binding))!;
    const limit = inbound.children.find((element) => element.name === 'rate-limit-by-key' && element.attributes['increment-condition'] === undefined)!;
    expect(position(chooseOfBinding)).toBeGreaterThan(position(findAll(inbound, 'validate-jwt')[0]!));
    expect(position(chooseOfBinding)).toBeLessThan(position(limit));
  });

  it('removes the proxy headers a caller could forge before forwarding', () => {
    const deleted = findAll(child(apiPolicy, 'inbound'), 'set-header').filter((header) => header.attributes['exists-action'] === 'delete').map((header) => header.attributes.name);
    expect(deleted).toEqual(expect.arrayContaining(['Forwarded', 'X-Forwarded-For', 'X-Forwarded-Host', 'X-Forwarded-Proto', 'X-Forwarded-Port', 'X-Forwarded-Prefix', 'X-Real-IP', 'X-Original-URL']));
  });

  it('passes conditional requests through: If-None-Match in, ETag and X-Summary-Schema out, no response cache answering them', () => {
    const touched = findAll(apiPolicy, 'set-header').map((header) => header.attributes.name!.toLowerCase());
    expect(touched.length).toBeGreaterThan(5);
    for (const name of ['if-none-match', 'etag', 'x-summary-schema']) expect([name, touched.includes(name)]).toEqual([name, false]);
    for (const cache of ['cache-lookup', 'cache-store', 'cache-lookup-value']) expect(findAll(apiPolicy, cache)).toEqual([]);
    // The service's validators reach the caller: the OpenAPI document the gateway imports describes them.
    const document = JSON.parse(read(join(ROOT, 'openapi/openapi.json'))) as { components: { parameters: Record<string, unknown>; headers: Record<string, unknown> } };
    expect(Object.keys(document.components.parameters)).toContain('If-None-Match');
    expect(Object.keys(document.components.headers)).toEqual(expect.arrayContaining(['ETag', 'X-Summary-Schema']));
  });
});

describe('the API policy, exports', () => {
  it('keys Parquet exports on subscription and client, only after the token is validated', () => {
    const inbound = child(apiPolicy, 'inbound');
    const names = inbound.children.map((element) => element.attributes.name ?? element.name);
    expect(names.indexOf('exportKey')).toBeGreaterThan(names.indexOf('validate-jwt'));
    const [jwt] = findAll(inbound, 'validate-jwt');
    expect(jwt!.attributes['output-token-variable-name']).toBe('jwt');
    const key = inbound.children.find((element) => element.attributes.name === 'exportKey')!.attributes.value!;
    expect(key).toContain('application/vnd.apache.parquet');
    expect(key).toContain('(string)context.Variables["client"]');
  });

  it('lets one export per key run at once, and forwards everything else unlimited', () => {
    const backend = child(apiPolicy, 'backend');
    const [limit, ...others] = findAll(backend, 'limit-concurrency');
    expect(others).toEqual([]);
    expect(limit!.attributes).toEqual({ key: '@((string)context.Variables["exportKey"])', 'max-count': '1' });
    expect(limit!.children.map((element) => element.name)).toEqual(['forward-request']);
    expect(findAll(backend, 'forward-request')).toHaveLength(2);
  });
});

describe('the products', () => {
  it('carry no policy of their own: every limit is in the API policy, which every subscription passes', () => {
    expect(resourcesOfType(apiModule, 'Microsoft.ApiManagement/service/products/policies')).toEqual([]);
  });
});

describe('the API, product and subscription', () => {
  it('import the API from openapi/openapi.json under the summary path, subscription required, HTTPS only', () => {
    const [api] = resourcesOfType(apiModule, 'Microsoft.ApiManagement/service/apis');
    const value = at(api?.body, 'properties', 'value');
    expect(value?.text).toBe("string(loadJsonContent('../../openapi/openapi.json'))");
    expect(resolve(INFRA, 'modules', stringArgumentsOf(apiModule, 'loadJsonContent').find((path) => path.endsWith('.json'))!)).toBe(join(ROOT, 'openapi/openapi.json'));
    expect(literalString(at(api?.body, 'properties', 'format'))).toBe('openapi+json');
    expect(at(api?.body, 'properties', 'subscriptionRequired')?.text).toBe('true');
    expect(at(api?.body, 'properties', 'protocols')?.namedChildren.map((node) => literalString(node))).toEqual(['https']);
    const module = deployables(main, 'module_declaration').find((candidate) => candidate.type === 'modules/api-management-api.bicep');
    expect(throughVariables(main, at(module?.body, 'params', 'apiPath'))?.text).toBe("'summary'");
  });

  it('keep openapi/openapi.json within what loadJsonContent can load (1,048,576 characters)', () => {
    // Only its length is read here; its content is checked by the OpenAPI tests.
    expect(read(join(ROOT, 'openapi/openapi.json')).length).toBeLessThanOrEqual(1_048_576);
  });

  it('publish a production and a UAT product, each requiring a subscription, with one subscription per registered client', () => {
    const products = resourcesOfType(apiModule, 'Microsoft.ApiManagement/service/products');
    expect(products.map((product) => product.symbol)).toEqual(['product', 'uatProduct']);
    for (const product of products) expect(at(product.body, 'properties', 'subscriptionRequired')?.text).toBe('true');
    const subscriptions = resourcesOfType(apiModule, 'Microsoft.ApiManagement/service/subscriptions');
    expect(subscriptions.map((subscription) => [subscription.loop?.text.match(/^\[for client in items\((\w+)\):/)?.[1], at(subscription.body, 'properties', 'scope')?.text])).toEqual([
      ['clientRegistry', "'/products/${product.name}'"],
      ['uatClientRegistry', "'/products/${uatProduct.name}'"],
    ]);
    expect(resourcesOfType(apiModule, 'Microsoft.ApiManagement/service/products/apis').map((link) => at(link.body, 'parent')?.text)).toEqual(['product', 'uatProduct']);
  });

  it('route callers of the UAT product to the uat slot', () => {
    const [route] = findAll(child(apiPolicy, 'inbound'), 'choose').filter((choose) => findAll(choose, 'set-backend-service').length > 0);
    expect(route!.children[0]!.attributes.condition).toBe('@(context.Product != null && context.Product.Id == "{{uat-product-id}}")');
    expect(findAll(route!.children[0]!, 'set-backend-service')[0]!.attributes['backend-id']).toBe('summary-function-app-uat');
    expect(assignedValue(declaration(apiModule, 'variable_declaration', 'plainNamedValues'))?.text).toContain("'uat-product-id': uatProductName");
  });

  it('log neither headers nor bodies, frontend or backend', () => {
    const [diagnostics] = resourcesOfType(apiModule, 'Microsoft.ApiManagement/service/apis/diagnostics');
    for (const side of ['frontend', 'backend']) {
      for (const direction of ['request', 'response']) {
        const logged = throughVariables(apiModule, at(diagnostics?.body, 'properties', side, direction));
        expect(at(logged, 'headers')?.namedChildren).toEqual([]);
        expect(at(logged, 'body', 'bytes')?.text).toBe('0');
      }
    }
    expect(at(diagnostics?.body, 'properties', 'logClientIp')?.text).toBe('false');
  });

  it('output the gateway base URL as gateway URL plus the API path', () => {
    const output = assignedValue(declaration(apiModule, 'output_declaration', 'baseUrl'));
    expect(output?.text).toBe("'${service.properties.gatewayUrl}/${api.properties.path}'");
    expect(assignedValue(declaration(main, 'output_declaration', 'gatewayBaseUrl'))?.text).toBe('apiManagementApi.outputs.baseUrl');
  });
});
