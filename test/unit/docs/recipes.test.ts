/**
 * The no-code recipes (docs/recipes/, issue 22): not run here (no Data Factory, Fabric or Power
 * Query), so checked as far as they can be. The Data Factory template is valid against Azure
 * Resource Manager's published schema of Data Factory resources (fixtures/data-factory); what its
 * pipelines would send is computed with an evaluator of their expressions and held against the
 * OpenAPI document; the M query parses with Microsoft's Power Query parser and names only what the
 * document has. test/integration/recipes.test.ts sends those requests to the local stack.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import Ajv04 from 'ajv-draft-04';
import * as PQP from '@microsoft/powerquery-parser';
import { projectRoot } from '../../../dev/project-root.js';
import { DATASETS } from '../../../client/src/datasets.js';
import { evaluate } from '../../support/adf-expression.js';
import { activity, monthRequests, resource, template, type Resource } from '../../support/data-factory-recipe.js';
import { committedDocument } from '../../support/document-validator.js';

const root = projectRoot();
const fixtures = join(root, 'test/unit/docs/fixtures/data-factory');
const query = readFileSync(join(root, 'docs/recipes/power-query.pq'), 'utf8');
const openapi = committedDocument() as { paths: Record<string, unknown>; components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };


const SCHEMA_ID = 'https://schema.management.azure.com/schemas/2018-06-01/Microsoft.DataFactory.json';
const DEFINITION_OF: Record<string, string> = {
  'Microsoft.DataFactory/factories/linkedservices': 'factories_linkedservices',
  'Microsoft.DataFactory/factories/datasets': 'factories_datasets',
  'Microsoft.DataFactory/factories/pipelines': 'factories_pipelines',
};

function validator() {
  const Ajv = Ajv04 as unknown as typeof Ajv04.default;
  const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: false });
  ajv.addSchema(JSON.parse(readFileSync(join(fixtures, 'common-definitions.json'), 'utf8')) as object);
  ajv.addSchema(JSON.parse(gunzipSync(readFileSync(join(fixtures, 'Microsoft.DataFactory.json.gz'))).toString('utf8')) as object);
  return (resource: Resource) => {
    const validate = ajv.getSchema(`${SCHEMA_ID}#/resourceDefinitions/${DEFINITION_OF[resource.type] ?? 'unknown'}`);
    if (!validate) throw new Error(`no resource definition for ${resource.type}`);
    return validate(resource) ? [] : (validate.errors ?? []).slice(0, 3).map((error) => `${error.instancePath} ${error.message ?? ''}`);
  };
}

describe('docs/recipes/data-factory.json', () => {
  const validate = validator();

  it.each(template.resources.map((entry) => [entry.name, entry]))('%s is valid against the published Data Factory schema', (_name, entry) => {
    expect(validate(entry as Resource)).toEqual([]);
  });

  it('and the schema refuses a broken copy (the check can fail)', () => {
    const broken = structuredClone(resource('SummaryPagesToLake'));
    broken.properties.activities[0].typeProperties.activities[0].typeProperties.source.type = 'RestSauce';
    expect(validate(broken)).not.toEqual([]);
    const linked = structuredClone(resource('SummaryRest'));
    linked.properties.typeProperties.authenticationType = 'ClientCredentials';
    expect(validate(linked)).not.toEqual([]);
  });

  it('pages JSON month by month: calendar months, a body without page, the next page by $.pagination.nextLink', () => {
    const requests = monthRequests('SummaryPagesToLake');
    expect(requests.map((request) => JSON.parse(request.body))).toEqual([
      ['01', '31'], ['02', '28'], ['03', '31'], ['04', '30'], ['05', '31'], ['06', '30'], ['07', '31'], ['08', '31'], ['09', '30'], ['10', '31'], ['11', '30'], ['12', '31'],
    ].map(([month, last]) => ({ createdFrom: `2025-${month}-01`, createdTo: `2025-${month}-${last}`, pageSize: 1000 })));
    expect(requests.map((request) => request.file)).toEqual(Array.from({ length: 12 }, (_, index) => `contracts-2025-${String(index + 1).padStart(2, '0')}.parquet`));
    expect(new Set(requests.map((request) => `/${request.relativeUrl}`))).toEqual(new Set([DATASETS.contracts.path]));
    const source = activity('SummaryPagesToLake', 'CopyMonth').typeProperties.source;
    expect(source.paginationRules).toEqual({ AbsoluteUrl: '$.pagination.nextLink' });
    expect(Object.keys(openapi.components.schemas.Pagination!.properties!)).toContain('nextLink');
    expect(monthRequests('SummaryPagesToLake', { firstMonth: '2024-11-01', monthCount: 4, by: 'updated' }).map((request) => JSON.parse(request.body).updatedTo)).toEqual(['2024-11-30', '2024-12-31', '2025-01-31', '2025-02-28']);
  });

  it('exports Parquet by the HTTP connector: the export media type of the dataset, the token only from a secure activity', () => {
    for (const dataset of ['invoices', 'contracts'] as const) {
      const [first] = monthRequests('SummaryExportsToLake', { dataset });
      const headers = String(evaluate(first!.headers.value, { parameters: { dataset }, activities: { GetToken: { output: { access_token: 'token' } } } }));
      expect(headers.split('\n')).toEqual(['Authorization: Bearer token', `Accept: ${DATASETS[dataset].exportType}`, 'Content-Type: application/json']);
      expect(JSON.parse(first!.body)).toEqual({ createdFrom: '2025-01-01', createdTo: '2025-01-31' });
      expect(first!.file).toBe(`${dataset}-2025-01.${dataset === 'invoices' ? 'zip' : 'parquet'}`);
    }
    expect(activity('SummaryExportsToLake', 'GetClientSecret').policy.secureOutput).toBe(true);
    expect(activity('SummaryExportsToLake', 'GetToken').policy).toMatchObject({ secureInput: true, secureOutput: true });
    expect(activity('SummaryExportsToLake', 'CopyMonth').policy.secureInput).toBe(true);
  });

  it('keeps every secret in Key Vault: the keys as auth headers, the client secret as a Key Vault reference', () => {
    for (const name of ['SummaryRest', 'SummaryHttp']) {
      const headers = resource(name).properties.typeProperties.authHeaders as Record<string, { type: string; secretName: string }>;
      expect(Object.keys(headers).sort()).toEqual(['Ocp-Apim-Subscription-Key', 'x-api-key']);
      for (const header of Object.values(headers)) expect(header.type).toBe('AzureKeyVaultSecret');
    }
    expect(resource('SummaryRest').properties.typeProperties).toMatchObject({ authenticationType: 'OAuth2ClientCredential', clientSecret: { type: 'AzureKeyVaultSecret' } });
    expect(JSON.stringify(template)).not.toMatch(/"(SecureString|password)"/);
  });
});

describe('docs/recipes/power-query.pq', () => {
  it('parses as Power Query M (Microsoft\'s parser), which refuses a broken copy', async () => {
    const task = await PQP.TaskUtils.tryLexParse(PQP.DefaultSettings, query);
    expect(PQP.TaskUtils.isParseStageOk(task)).toBe(true);
    const broken = await PQP.TaskUtils.tryLexParse(PQP.DefaultSettings, query.replace('Contracts = Table.FromRecords', 'Contracts = Table.FromRecords('));
    expect(PQP.TaskUtils.isParseStageOk(broken)).toBe(false);
  });

  it('calls a literal base URL with the operation in RelativePath and only page and pageSize in Query', () => {
    const call = /Web\.Contents\(\s*"https:\/\/<gateway>\/summary",\s*\[\s*RelativePath = "([^"]+)",\s*Query = \[([^\]]*)\]/.exec(query);
    expect(call).not.toBeNull();
    expect(Object.keys(openapi.paths)).toContain(`/${call![1]}`);
    expect([...call![2]!.matchAll(/(\w+) =/g)].map((match) => match[1])).toEqual(['page', 'pageSize']);
  });

  it('sends filters the operation has in the body, without page, and the three credentials', () => {
    const body = /Json\.FromValue\(\[([^\]]*)\]\)/.exec(query)![1]!;
    const members = [...body.matchAll(/(\w+) =/g)].map((match) => match[1]);
    expect(members).toEqual(['createdFrom', 'createdTo']);
    const bodySchema = openapi.components.schemas.ContractsFilters ?? Object.values(openapi.components.schemas).find((schema) => schema.properties?.contractWorkspaceID && schema.properties?.createdFrom);
    for (const member of members) expect(Object.keys(bodySchema!.properties!)).toContain(member);
    const headers = /Headers = \[\s*(Authorization[\s\S]*?)\]/.exec(query)![1]!;
    expect([...headers.matchAll(/(?:#"([^"]+)"|(\w+)) =/g)].map((match) => match[1] ?? match[2])).toEqual(['Authorization', 'Ocp-Apim-Subscription-Key', 'x-api-key', 'Accept', 'Content-Type']);
  });

  it('asks for the token in M with the secret as a parameter, its risk written next to it', () => {
    expect(query).toMatch(/ClientSecret = "<client secret>", \/\/ RISK:/);
    expect(query).toMatch(/grant_type = "client_credentials"/);
    expect(query).toMatch(/\)\[access_token\]/);
    expect(query).not.toMatch(/id_token/);
    expect(query).toMatch(/NOT RUN HERE/);
  });
});
