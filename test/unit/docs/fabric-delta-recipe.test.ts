/**
 * docs/recipes/fabric/SummaryDeltaToWarehouse.DataPipeline, the delta recipe as a Fabric item (not
 * run here: no Fabric): valid as Fabric documents its item format, held to Data Factory's
 * SummaryDeltaToWarehouse request by request and statement by statement, with its Key Vault and
 * token activities the export-job item's. test/integration/recipes.test.ts runs it beside the Data
 * Factory pipeline against a service of its own.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { projectRoot } from '../../../dev/project-root.js';
import { evaluate, headersOf, valueOf, type ExpressionScope } from '../../support/adf-expression.js';
import { activities, activity, nested, resource } from '../../support/data-factory-recipe.js';
import { CONNECTIONS, DELTA_CONNECTIONS, deltaItem, fabricFormats, formatErrors as errors, jobItem } from '../../support/fabric-recipe.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const root = projectRoot();

describe('docs/recipes/fabric/SummaryDeltaToWarehouse.DataPipeline', () => {
  const { validateContent, validatePlatform } = fabricFormats();
  const PIPELINE = 'SummaryDeltaToWarehouse';
  const ours = deltaItem.activity;
  const theirs = (name: string) => activity(PIPELINE, name);
  const text = (name: string, scope: ExpressionScope, of: (step: string) => Record<string, any>) => String(valueOf(of(name).typeProperties.scripts[0].text, scope));

  it('is a DataPipeline item definition as Fabric documents it, which refuses a broken copy', () => {
    expect(errors(validateContent, deltaItem.content)).toEqual([]);
    expect(errors(validatePlatform, deltaItem.platform)).toEqual([]);
    expect(deltaItem.platform.metadata.displayName).toBe(PIPELINE);
    // Two items of one workspace's Git folder: Fabric tells them apart by their logical ids.
    expect(deltaItem.platform.config.logicalId).not.toBe(jobItem.platform.config.logicalId);
    const broken = (name: string, change: (step: any) => void) => {
      const copy = structuredClone(deltaItem.content);
      change(nested(copy.properties.activities).find((step) => step.name === name));
      return errors(validateContent, copy);
    };
    expect(broken('ApplyDelta', (step) => { delete step.linkedService; })).not.toEqual([]);
    expect(broken('KeepRenewedToken', (step) => { step.typeProperties.scripts[0].type = 'Statement'; })).not.toEqual([]);
    expect(broken('CopyDelta', (step) => { delete step.typeProperties.sink.datasetSettings.typeProperties.table; })).not.toEqual([]);
    expect(broken('AskAgain', (step) => { step.typeProperties.url = step.typeProperties.relativeUrl; delete step.typeProperties.relativeUrl; })).not.toEqual([]);
  });

  it('is Data Factory\'s SummaryDeltaToWarehouse: the same requests, staging, statements and token kept, in one transaction', () => {
    expect(Object.keys(deltaItem.content.properties.parameters)).toEqual(Object.keys(resource(PIPELINE).properties.parameters).filter((name) => name !== 'baseUrl'));
    // The same activities; Fabric's Key Vault and token requests come first (its REST connection is
    // anonymous, so the Copy sends the token and keys itself), Data Factory's only where AskAgain needs them.
    expect(deltaItem.activities().map((step) => step.name).sort()).toEqual(activities(PIPELINE).map((step) => step.name).sort());
    expect(ours('CopyDelta').dependsOn.map((dependency: { activity: string }) => dependency.activity).sort()).toEqual(['GetApiKey', 'GetSubscriptionKey', 'GetToken', 'LastToken']);
    // Every other activity waits for what Data Factory's waits for (AskAgain: the top-level Key Vault and token requests, done before the Copy).
    for (const step of deltaItem.activities().filter(({ name }) => !['CopyDelta', 'AskAgain'].includes(name))) {
      expect([step.name, step.dependsOn ?? []]).toEqual([step.name, theirs(step.name).dependsOn ?? []]);
    }
    expect(ours('AskAgain').dependsOn).toEqual([]);
    // The secrets and the token are asked for exactly as the export-job item asks.
    for (const name of ['GetClientSecret', 'GetSubscriptionKey', 'GetApiKey', 'GetToken']) expect(ours(name)).toEqual(jobItem.activity(name));
    for (const same of ['IfNothingStaged']) expect(ours(same).typeProperties.expression).toEqual(theirs(same).typeProperties.expression);
    const gateway = 'https://gateway.example/summary/';
    for (const dataset of ['contracts', 'invoices']) for (const startAgain of [false, true]) for (const deltaToken of ['', 'd1.0123456789abcdef0123456789abcdef.1']) {
      const scope: ExpressionScope = {
        parameters: { ...deltaItem.defaults(), dataset, startAgain },
        activities: {
          LastToken: { output: { firstRow: { deltaToken } } }, GetToken: { output: { access_token: 't' } }, GetSubscriptionKey: { output: { value: 's' } }, GetApiKey: { output: { value: 'k' } },
          CopyDelta: { output: { rowsCopied: 0 } }, AskAgain: { output: { data: [], delta: { deltaToken: 'd1.fedcba9876543210fedcba9876543210.2' } } },
        },
      };
      const adfScope = { ...scope, parameters: { ...scope.parameters, baseUrl: gateway } };
      const at = [dataset, startAgain, deltaToken];
      expect([at, valueOf(ours('LastToken').typeProperties.source.sqlReaderQuery, scope)]).toEqual([at, valueOf(theirs('LastToken').typeProperties.source.sqlReaderQuery, adfScope)]);
      const [source, adfSource] = [ours('CopyDelta').typeProperties.source, theirs('CopyDelta').typeProperties.source];
      const input = theirs('CopyDelta').inputs[0];
      expect(`${gateway}${String(valueOf(source.datasetSettings.typeProperties.relativeUrl, scope))}`)
        .toBe(`${gateway}${String(evaluate(resource(input.referenceName).properties.typeProperties.relativeUrl.value, { dataset: { dataset: valueOf(input.parameters.dataset, adfScope) } }))}`);
      expect([source.requestMethod, valueOf(source.requestBody, scope), source.paginationRules]).toEqual([adfSource.requestMethod, valueOf(adfSource.requestBody, adfScope), adfSource.paginationRules]);
      // Data Factory's REST linked service signs the request (OAuth2ClientCredential, the keys as auth headers); Fabric's source does.
      expect(headersOf(source.additionalHeaders, scope)).toEqual({ ...adfSource.additionalHeaders, Authorization: 'Bearer t', 'Ocp-Apim-Subscription-Key': 's', 'x-api-key': 'k' });
      const [sink, adfSink] = [ours('CopyDelta').typeProperties, theirs('CopyDelta')];
      expect([valueOf(sink.sink.preCopyScript, scope), valueOf(sink.translator, scope), valueOf(sink.sink.datasetSettings.typeProperties.table, scope)])
        .toEqual([valueOf(adfSink.typeProperties.sink.preCopyScript, adfScope), valueOf(adfSink.typeProperties.translator, adfScope), valueOf(adfSink.outputs[0].parameters.table, adfScope)]);
      // One transaction each: a failed statement rolls a Fabric Warehouse's transaction back by itself, so XACT_ABORT (Azure SQL's) is not sent.
      for (const script of ['ApplyDelta', 'KeepRenewedToken']) {
        const [fabric, adf] = [text(script, scope, ours), text(script, adfScope, theirs)];
        expect([at, script, fabric]).toEqual([at, script, adf.replace(/^SET XACT_ABORT ON; /, '')]);
        expect(fabric).toMatch(/^BEGIN TRANSACTION; .* COMMIT TRANSACTION;$/);
      }
      const [ask, adfAsk] = [ours('AskAgain').typeProperties, theirs('AskAgain').typeProperties];
      expect(`${gateway}${String(valueOf(ask.relativeUrl, scope))}`).toBe(valueOf(adfAsk.url, adfScope));
      expect([ask.method, headersOf(ask.headers, scope), valueOf(ask.body, scope)]).toEqual([adfAsk.method, headersOf(adfAsk.headers, adfScope), valueOf(adfAsk.body, adfScope)]);
    }
  });

  it('keeps both tables in one Warehouse, reaches the connections the docs have the user create, and holds no secret', () => {
    const warehouses = [ours('LastToken').typeProperties.datasetSettings.linkedService, ours('CopyDelta').typeProperties.sink.datasetSettings.linkedService, ours('ApplyDelta').linkedService, ours('KeepRenewedToken').linkedService];
    expect(warehouses.map((warehouse) => warehouse.properties.type)).toEqual(['DataWarehouse', 'DataWarehouse', 'DataWarehouse', 'DataWarehouse']);
    for (const warehouse of warehouses) expect(warehouse).toEqual(warehouses[0]);
    // The Key Vault and token connections are the export-job item's; the service's two are too.
    expect(DELTA_CONNECTIONS).toEqual({ keyVault: CONNECTIONS.keyVault, token: CONNECTIONS.token, service: CONNECTIONS.service, serviceRest: CONNECTIONS.serviceRest });
    const consuming = readFileSync(join(root, 'docs/consuming.md'), 'utf8');
    for (const id of [...Object.values(DELTA_CONNECTIONS), warehouses[0].properties.typeProperties.artifactId]) expect(consuming).toContain(id);
    for (const name of ['GetClientSecret', 'GetSubscriptionKey', 'GetApiKey', 'GetToken', 'AskAgain']) expect([name, ours(name).policy.secureOutput]).toEqual([name, true]);
    for (const name of ['GetToken', 'CopyDelta', 'AskAgain']) expect([name, ours(name).policy.secureInput]).toEqual([name, true]);
    expect(JSON.stringify(deltaItem.content)).not.toMatch(/"(securestring|password|client_secret=[^'])/i);
  });

  it('makes its tables with types a Fabric Warehouse has (docs/recipes/warehouse-delta.sql)', () => {
    const ddl = readFileSync(join(root, 'docs/recipes/warehouse-delta.sql'), 'utf8').replace(/--.*$/gm, '');
    // Every column of every table: its definition's second word, with its size.
    const tables = [...ddl.matchAll(/CREATE TABLE (\S+) \(([\s\S]*?)\);/g)];
    const columns = tables.flatMap(([, , body]) => body!.split(/,(?![^(]*\))/).map((column) => column.trim().split(/\s+/).slice(1).join(' ').replace(/ (NOT )?NULL$/, '')));
    expect([tables.length, columns.length]).toEqual([5, 66]);
    // Fabric Warehouse: no NVARCHAR, NTEXT, TEXT or DATETIME; DATETIME2 to 6 digits.
    for (const type of new Set(columns)) expect([type, /^(VARCHAR\((\d+|MAX)\)|DECIMAL\(\d+, \d+\)|DATE|DATETIME2\([0-6]\))$/.test(type)]).toEqual([type, true]);
  });
});
