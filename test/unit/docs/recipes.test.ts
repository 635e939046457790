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
import { evaluate, headersOf } from '../../support/adf-expression.js';
import { activities, activity, defaults, monthRequests, resource, template, type Resource } from '../../support/data-factory-recipe.js';
import { CONNECTIONS, content, fabricActivities, fabricActivity, fabricDefaults, fabricFormats, formatErrors as errors, platform } from '../../support/fabric-recipe.js';
import { committedDocument } from '../../support/document-validator.js';
import { EXPORT_STORAGE } from '../../../shared/exports/export-storage.js';

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
    const job = structuredClone(resource('SummaryJobToLake'));
    job.properties.activities.find((step: { name: string }) => step.name === 'UntilCompleted').typeProperties.expression.type = 'Literal';
    expect(validate(job)).not.toEqual([]);
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

  it('starts a job with last run\'s manifest windows in ifNoneMatch (an empty list the first time), and waits in an Until loop', () => {
    const parameters: Record<string, unknown> = { ...defaults('SummaryJobToLake'), baseUrl: 'https://gateway.example/summary/' };
    const start = activity('SummaryJobToLake', 'StartJob').typeProperties;
    const activities = { GetToken: { output: { access_token: 't' } }, GetSubscriptionKey: { output: { value: 's' } }, GetApiKey: { output: { value: 'a' } } };
    expect(evaluate(start.url.value, { parameters })).toBe('https://gateway.example/summary/v1/contracts/exports');
    expect(Object.keys(openapi.paths)).toContain(`/v1/${String(parameters.dataset)}/exports`);
    expect(evaluate(start.body.value, { parameters, variables: { etags: '[]' } })).toEqual({ createdFrom: '2025-01-01', createdTo: '2025-12-31', ifNoneMatch: [] });
    const windows = [{ label: '2025-01', from: '2025-01-01', to: '2025-01-31', status: 'unchanged', etag: 'W/"x"', files: [] }];
    const etags = evaluate(activity('SummaryJobToLake', 'KeepEtags').typeProperties.value.value, { activities: { LastManifest: { output: { firstRow: { windows } } } } });
    expect(evaluate(start.body.value, { parameters: { ...parameters, by: 'updated' }, variables: { etags } })).toEqual({ updatedFrom: '2025-01-01', updatedTo: '2025-12-31', ifNoneMatch: windows });
    expect(start.turnOffAsync).toBe(true);
    expect(evaluate(start.headers.Authorization.value, { activities })).toBe('Bearer t');
    expect(start.headers.Prefer).toBe('wait=20');
    const until = activity('SummaryJobToLake', 'UntilCompleted').typeProperties;
    expect([evaluate(until.expression.value, { variables: { status: 'running' } }), evaluate(until.expression.value, { variables: { status: 'completed' } })]).toEqual([false, true]);
    expect(evaluate(activity('SummaryJobToLake', 'Status').typeProperties.url.value, { parameters, activities: { StartJob: { output: { id: 'a'.repeat(32) } } } })).toBe(`https://gateway.example/summary/v1/exports/${'a'.repeat(32)}`);
  });

  it('copies each file of the manifest by its URL alone into the Lake, under the client\'s names, its secrets in secure activities only', () => {
    const copy = activity('SummaryJobToLake', 'CopyFile');
    const item = { window: '2025-03', table: 'invoice_tables', part: 1, url: 'https://account.blob.core.windows.net/exports/x?sig=s' };
    const parameters = { dataset: 'invoices', by: 'created' };
    expect(evaluate(copy.outputs[0].parameters.folder.value, { parameters, item })).toBe('invoices/by-created/invoice_tables');
    expect(evaluate(copy.outputs[0].parameters.file.value, { parameters, item })).toBe('invoice_tables-2025-03-1.parquet');
    expect(evaluate(activity('SummaryJobToLake', 'EachFile').typeProperties.items.value, { activities: { Manifest: { output: { files: [item] } } } })).toEqual([item]);
    expect(Object.keys((openapi.components.schemas.ExportJobStatus!.properties!.files as { items: { properties: object } }).items.properties)).toEqual(expect.arrayContaining(['window', 'table', 'part', 'url']));
    // The files' linked service is anonymous: nothing of the service's goes to storage.
    expect(resource('StorageHttp').properties.typeProperties).toEqual({ url: '@{linkedService().url}', enableServerCertificateValidation: true, authenticationType: 'Anonymous' });
    for (const name of ['StartJob', 'Status', 'Manifest', 'CopyFile']) expect(activity('SummaryJobToLake', name).policy.secureInput).toBe(true);
    for (const name of ['GetClientSecret', 'GetSubscriptionKey', 'GetApiKey', 'GetToken', 'Status', 'Manifest']) expect(activity('SummaryJobToLake', name).policy.secureOutput).toBe(true);
    // The saved manifest goes first and comes back last: a run that fails leaves none, and the next exports the range whole.
    const order = resource('SummaryJobToLake').properties.activities.map((step: { name: string }) => step.name);
    expect(order.indexOf('DropManifest')).toBeLessThan(order.indexOf('EachExportedWindow'));
    expect(order.at(-1)).toBe('SaveManifest');
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

describe('docs/recipes/fabric/SummaryJobToLake.DataPipeline', () => {
  const { validateContent, validatePlatform } = fabricFormats();
  const adf = resource('SummaryJobToLake').properties;
  const names = (list: readonly Record<string, unknown>[]) => list.map((step) => String(step.name));

  it('is a DataPipeline item definition as Fabric documents it (pipeline-content.json, .platform), which refuses a broken copy', () => {
    expect(errors(validateContent, content)).toEqual([]);
    expect(errors(validatePlatform, platform)).toEqual([]);
    const broken = (change: (copy: any) => void) => {
      const copy = structuredClone(content);
      change(copy);
      return errors(validateContent, copy);
    };
    expect(broken((copy) => { delete copy.properties.activities.find((step: { name: string }) => step.name === 'StartJob').externalReferences; })).not.toEqual([]);
    expect(broken((copy) => { copy.properties.activities.find((step: { name: string }) => step.name === 'StartJob').typeProperties.url = 'https://x/'; })).not.toEqual([]);
    expect(broken((copy) => { copy.properties.activities.find((step: { name: string }) => step.name === 'GetToken').dependsOn[0].dependencyConditions = ['Succeded']; })).not.toEqual([]);
    expect(broken((copy) => { copy.properties.activities.find((step: { name: string }) => step.name === 'UntilCompleted').type = 'DoUntil'; })).not.toEqual([]);
    expect(errors(validatePlatform, { ...platform, metadata: { ...platform.metadata, type: 'Notebook' } })).not.toEqual([]);
  });

  it('is Data Factory\'s SummaryJobToLake: the same activities in the same order, the same requests, parameters and variables', () => {
    expect(names(fabricActivities())).toEqual(names(activities('SummaryJobToLake')));
    for (const step of fabricActivities()) {
      const twin = activity('SummaryJobToLake', step.name);
      expect([step.name, step.type, step.dependsOn ?? []]).toEqual([step.name, twin.type, twin.dependsOn ?? []]);
      // Secure input and output at least where Data Factory has them.
      for (const secure of ['secureInput', 'secureOutput']) if (twin.policy?.[secure]) expect([step.name, secure, step.policy?.[secure]]).toEqual([step.name, secure, true]);
    }
    expect(Object.keys(content.properties.parameters)).toEqual([...Object.keys(adf.parameters).filter((name) => name !== 'baseUrl'), 'storageUrl']);
    expect(content.properties.variables).toEqual(adf.variables);
    const parameters = { ...fabricDefaults() };
    const windows = [{ label: '2025-01', etag: 'W/"x"' }];
    for (const variables of [{ etags: '[]' }, { etags: JSON.stringify(windows) }]) {
      const ours = evaluate(fabricActivity('StartJob').typeProperties.body.value, { parameters, variables });
      expect(JSON.parse(String(ours))).toEqual(evaluate(activity('SummaryJobToLake', 'StartJob').typeProperties.body.value, { parameters, variables }));
    }
    const scope = { parameters, activities: { StartJob: { output: { id: 'a'.repeat(32) } }, GetToken: { output: { access_token: 't' } }, GetSubscriptionKey: { output: { value: 's' } }, GetApiKey: { output: { value: 'k' } } } };
    for (const name of ['StartJob', 'Status', 'Manifest']) {
      const [ours, theirs] = [fabricActivity(name).typeProperties, activity('SummaryJobToLake', name).typeProperties];
      expect(`https://gateway.example/summary/${String(evaluate(ours.relativeUrl.value, scope))}`).toBe(evaluate(theirs.url.value, { ...scope, parameters: { ...parameters, baseUrl: 'https://gateway.example/summary/' } }));
      expect(headersOf(ours.headers, scope)).toEqual(headersOf(theirs.headers, scope));
    }
    const item = { window: '2025-03', table: 'invoice_tables', part: 1, url: 'https://account.blob.core.windows.net/exports/x?sig=s' };
    const sink = fabricActivity('CopyFile').typeProperties.sink.datasetSettings.typeProperties.location;
    const output = activity('SummaryJobToLake', 'CopyFile').outputs[0].parameters;
    expect([evaluate(sink.folderPath.value, { parameters, item }), evaluate(sink.fileName.value, { parameters, item })]).toEqual([evaluate(output.folder.value, { parameters, item }), evaluate(output.file.value, { parameters, item })]);
  });

  it('reads each file from the export storage connection only: the URL past the storage address, anything else refused', () => {
    const relative = fabricActivity('CopyFile').typeProperties.source.datasetSettings.typeProperties.location.relativeUrl.value;
    const parameters = { ...fabricDefaults(), storageUrl: 'https://account.blob.core.windows.net/' };
    expect(evaluate(relative, { parameters, item: { url: 'https://account.blob.core.windows.net/exports/job/2025-03/contracts-000.parquet?sv=1&sig=s' } })).toBe('exports/job/2025-03/contracts-000.parquet?sv=1&sig=s');
    // Only the export container, as a path: nothing a URL resolver could take for another host or scheme.
    expect(EXPORT_STORAGE.container).toBe('exports');
    for (const url of [
      'https://evil.example/exports/x?sig=s', 'https://account.blob.core.windows.net.evil.example/exports/x', 'http://account.blob.core.windows.net/exports/x',
      'https://account.blob.core.windows.net///evil.example/x', 'https://account.blob.core.windows.net/https://evil.example/x', 'https://account.blob.core.windows.net/other/x?sig=s',
    ]) {
      expect([url, evaluate(relative, { parameters, item: { url } })]).toEqual([url, 'not-the-export-storage']);
    }
    // A storageUrl set without its slash matches nothing: `…windows.net` would also start `…windows.net.evil.example`.
    const unslashed = { ...parameters, storageUrl: 'https://account.blob.core.windows.net' };
    for (const url of ['https://account.blob.core.windows.net/exports/x?sig=s', 'https://account.blob.core.windows.netexports/x']) {
      expect([url, evaluate(relative, { parameters: unslashed, item: { url } })]).toEqual([url, 'not-the-export-storage']);
    }
    // The five connections the docs have the user create, each named by its placeholder id, and nothing of the service's goes to storage.
    expect(new Set(Object.values(CONNECTIONS)).size).toBe(5);
    expect(fabricActivity('CopyFile').typeProperties.source.storeSettings).not.toHaveProperty('additionalHeaders');
    const consuming = readFileSync(join(root, 'docs/consuming.md'), 'utf8');
    for (const id of Object.values(CONNECTIONS)) expect(consuming).toContain(id);
  });

  it('keeps its secrets in Key Vault and secure activities: none in the definition', () => {
    for (const name of ['GetClientSecret', 'GetSubscriptionKey', 'GetApiKey', 'GetToken', 'Status', 'Manifest']) expect(fabricActivity(name).policy.secureOutput).toBe(true);
    for (const name of ['GetToken', 'StartJob', 'Status', 'Manifest', 'CopyFile', 'SaveManifest']) expect(fabricActivity(name).policy.secureInput).toBe(true);
    expect(JSON.stringify(content)).not.toMatch(/"(securestring|password|client_secret=[^'])/i);
  });
});

describe('docs/recipes/power-query-job.pq', () => {
  const jobQuery = readFileSync(join(root, 'docs/recipes/power-query-job.pq'), 'utf8');

  it('parses as Power Query M, which refuses a broken copy', async () => {
    expect(PQP.TaskUtils.isParseStageOk(await PQP.TaskUtils.tryLexParse(PQP.DefaultSettings, jobQuery))).toBe(true);
    expect(PQP.TaskUtils.isParseStageOk(await PQP.TaskUtils.tryLexParse(PQP.DefaultSettings, jobQuery.replace('Table.Combine(Tables)', 'Table.Combine(Tables')))).toBe(false);
  });

  it('reads the files of a completed manifest by a literal storage URL, the rest of each file\'s URL in RelativePath and Query, checking its size', () => {
    const status = openapi.components.schemas.ExportJobStatus!.properties!;
    const file = (status.files as { items: { properties: Record<string, unknown> } }).items.properties;
    for (const [, member] of jobQuery.matchAll(/manifest\[(\w+)\]/g)) expect(Object.keys(status)).toContain(member);
    for (const [, member] of jobQuery.matchAll(/file\[(\w+)\]/g)) expect(Object.keys(file)).toContain(member);
    expect(jobQuery).toMatch(/Web\.Contents\(\s*StorageUrl,\s*\[RelativePath = Text\.AfterDelimiter\(Own\[Path\], "\/"\), Query = Own\[Query\]\]/);
    expect(jobQuery).toMatch(/StorageUrl = "https:\/\/<account>\.blob\.core\.windows\.net"/);
    expect(jobQuery).toMatch(/Binary\.Length\(Bytes\) = file\[bytes\]/);
    // No secret of the service in it: the URLs are the only credential.
    expect(jobQuery).not.toMatch(/client_secret|Ocp-Apim-Subscription-Key|x-api-key|Authorization/);
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
