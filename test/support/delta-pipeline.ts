/**
 * The delta pipeline of a no-code recipe, docs/recipes/data-factory.json's SummaryDeltaToWarehouse
 * or its Fabric item (docs/recipes/fabric/SummaryDeltaToWarehouse.DataPipeline), run the way its
 * engine would run it, against a service on loopback and a DuckDB database file standing for the
 * warehouse (Azure SQL or a Fabric Warehouse): every request's URL, headers and body, the Lookup's
 * query, the Copy's mapping and the Script's statements are the pipeline's own expressions evaluated
 * (adf-expression.ts), the activities in their order. What differs between the engines (where a
 * request goes, how it is signed, which table the Copy writes) is a dialect. The Copy activity does what the REST connector does: POST the body,
 * follow `AbsoluteUrl` with the same body, take the rows under the collection reference, each
 * mapped path (one starting with `$` from the page's root, on each of its rows; arrays as JSON
 * text), and insert them after its pre-copy script.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../dev/project-root.js';
import { withDuckDb, type Query } from '../../dev/duckdb.js';
import { evaluate, headersOf, valueOf, type ExpressionScope } from './adf-expression.js';
import { activity, resource } from './data-factory-recipe.js';
import { connectionOf, DELTA_CONNECTIONS, deltaActivity, deltaDefaults } from './fabric-recipe.js';
import type { Engine } from './job-pipeline.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Step = Record<string, any>;
const PIPELINE = 'SummaryDeltaToWarehouse';

export interface DeltaPipelineTarget {
  /** The service's base URL, ending in a slash. */
  readonly baseUrl: string;
  readonly token: string;
  readonly subscriptionKey: string;
  readonly apiKey: string;
  /** The DuckDB database file standing for the warehouse. */
  readonly warehouse: string;
  readonly parameters: { readonly dataset: string; readonly startAgain?: boolean };
  /** Runs between ApplyDelta and AskAgain (a test's write there: something changed in between). */
  readonly beforeAskAgain?: () => Promise<void>;
}

/** What one run did: the delta's requests and the rows it staged. */
export interface DeltaPipelineRun {
  readonly requests: number;
  readonly staged: number;
  /** Whether the night staged no row and so asked once more for a token (IfNothingStaged). */
  readonly askedAgain: boolean;
}

/**
 * docs/recipes/warehouse-delta.sql made in the warehouse, as DuckDB takes it: its two T-SQL types,
 * DATETIME2(3) and VARCHAR(MAX), are DuckDB's TIMESTAMP and VARCHAR.
 */
export async function createWarehouse(path: string): Promise<void> {
  const ddl = readFileSync(join(projectRoot(), 'docs/recipes/warehouse-delta.sql'), 'utf8').replaceAll('DATETIME2(3)', 'TIMESTAMP').replaceAll('VARCHAR(MAX)', 'VARCHAR');
  await withDuckDb(async (query) => {
    await query('CREATE SCHEMA dbo');
    await query(ddl);
  }, path);
}

/** A value as a SQL literal for DuckDB's INSERT (the Copy activity's type conversion is the column's). */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') return String(value);
  return `'${(typeof value === 'string' ? value : JSON.stringify(value)).replaceAll("'", "''")}'`;
}

/** A mapping's JSON path (`['a']`, or `$['a']['b']` from the page's root) read from the row or the page. */
function read(path: string, row: any, page: any): unknown {
  const names = [...path.matchAll(/\['([^']+)'\]/g)].map((match) => match[1]!);
  return names.reduce((current, name) => current?.[name], path.startsWith('$') ? page : row);
}

/**
 * A Script activity's text as DuckDB runs it: `SET XACT_ABORT ON` is Azure SQL's (a failed
 * statement rolls the whole transaction back), which DuckDB, like a Fabric Warehouse, always does.
 */
function forDuckDb(text: string): string {
  return text.replace(/^SET XACT_ABORT ON; /, '');
}

/** What differs between the engines. */
interface Dialect {
  readonly parameters: Record<string, unknown>;
  step(name: string): Step;
  /** The Copy's first request: its URL and headers (the connection's own and the source's). */
  copySource(step: Step, scope: ExpressionScope): { url: string; headers: Record<string, string> };
  /** The table (without its schema) the Copy writes. */
  copyTable(step: Step, scope: ExpressionScope): string;
  /** A Web activity's URL. */
  webUrl(step: Step, scope: ExpressionScope): string;
}

function dataFactory(target: DeltaPipelineTarget): Dialect {
  return {
    parameters: { startAgain: false, baseUrl: target.baseUrl },
    step: (name) => activity(PIPELINE, name),
    copySource: (step, scope) => {
      const input = step.inputs[0];
      const relative = resource(input.referenceName).properties.typeProperties.relativeUrl;
      const url = `${target.baseUrl}${String(evaluate(relative.value, { dataset: { dataset: valueOf(input.parameters.dataset, scope) } }))}`;
      // The REST linked service adds the token (OAuth2ClientCredential) and its auth headers, the keys.
      return { url, headers: { ...step.typeProperties.source.additionalHeaders, authorization: `Bearer ${target.token}`, 'ocp-apim-subscription-key': target.subscriptionKey, 'x-api-key': target.apiKey } };
    },
    copyTable: (step, scope) => String(valueOf(step.outputs[0].parameters.table, scope)),
    webUrl: (step, scope) => String(valueOf(step.typeProperties.url, scope)),
  };
}

function fabric(target: DeltaPipelineTarget): Dialect {
  // The connections the user creates (docs/consuming.md): their base URLs here.
  const bases: Record<string, string> = { [DELTA_CONNECTIONS.service]: target.baseUrl, [DELTA_CONNECTIONS.serviceRest]: target.baseUrl };
  const base = (step: Step) => {
    const found = bases[connectionOf(step) ?? ''];
    if (found === undefined) throw new Error(`${String(step.name)} names a connection the recipe's docs do not create`);
    return found;
  };
  return {
    parameters: { ...deltaDefaults(), startAgain: false },
    step: deltaActivity,
    copySource: (step, scope) => {
      const { source } = step.typeProperties;
      // The REST connection is anonymous: the token and the keys are the source's own headers.
      return { url: `${base(step)}${String(valueOf(source.datasetSettings.typeProperties.relativeUrl, scope))}`, headers: headersOf(source.additionalHeaders, scope) };
    },
    copyTable: (step, scope) => String(valueOf(step.typeProperties.sink.datasetSettings.typeProperties.table, scope)),
    webUrl: (step, scope) => `${base(step)}${String(valueOf(step.typeProperties.relativeUrl, scope))}`,
  };
}

/** Runs the pipeline once; throws where the engine would fail the run (an answer other than 2xx). */
export async function runDeltaPipeline(target: DeltaPipelineTarget, engine: Engine = 'data-factory'): Promise<DeltaPipelineRun> {
  const dialect = engine === 'fabric' ? fabric(target) : dataFactory(target);
  const { step } = dialect;
  const parameters = { ...dialect.parameters, ...target.parameters };
  // Key Vault and the token endpoint stand outside: their answers are given.
  const activities: Record<string, any> = {
    GetToken: { output: { access_token: target.token } },
    GetSubscriptionKey: { output: { value: target.subscriptionKey } },
    GetApiKey: { output: { value: target.apiKey } },
  };
  const scope = (extra: Partial<ExpressionScope> = {}): ExpressionScope => ({ parameters, activities, ...extra });
  const value = (entry: any, extra?: Partial<ExpressionScope>) => valueOf(entry, scope(extra));
  return withDuckDb(async (query: Query) => {
    const lookup = step('LastToken').typeProperties;
    activities.LastToken = { output: { firstRow: (await query(String(value(lookup.source.sqlReaderQuery))))[0] } };

    const copy = step('CopyDelta');
    const { source, sink } = copy.typeProperties;
    const { url, headers } = dialect.copySource(copy, scope());
    const table = `dbo.${dialect.copyTable(copy, scope())}`;
    const translator = value(copy.typeProperties.translator) as { collectionReference: string; mappings: { source: { path: string }; sink: { name: string } }[] };
    const body = String(value(source.requestBody));
    await query(String(value(sink.preCopyScript)));
    let next: string | undefined = url;
    let requests = 0;
    let staged = 0;
    const columns = translator.mappings.map((mapping) => mapping.sink.name).join(', ');
    while (next) {
      requests += 1;
      const response = await fetch(next, { method: source.requestMethod, headers, body });
      const text = await response.text();
      if (!response.ok) throw new Error(`CopyDelta answered ${response.status}: ${text}`);
      const page = JSON.parse(text) as any;
      const rows = read(translator.collectionReference, page, page) as any[];
      if (rows.length > 0) {
        const values = rows.map((row) => `(${translator.mappings.map((mapping) => literal(read(mapping.source.path, row, page))).join(', ')})`);
        await query(`INSERT INTO ${table} (${columns}) VALUES ${values.join(', ')}`);
      }
      staged += rows.length;
      // AbsoluteUrl = $.pagination.nextLink: the next request, with the same body.
      next = read(`$['${source.paginationRules.AbsoluteUrl.slice(2).split('.').join("']['")}']`, page, page) as string | undefined;
    }

    activities.CopyDelta = { output: { rowsCopied: staged } };
    for (const script of step('ApplyDelta').typeProperties.scripts) await query(forDuckDb(String(value(script.text))));

    const askedAgain = value(step('IfNothingStaged').typeProperties.expression) === true;
    if (askedAgain) {
      await target.beforeAskAgain?.();
      const ask = step('AskAgain');
      const web = ask.typeProperties;
      const response = await fetch(dialect.webUrl(ask, scope()), { method: web.method, headers: headersOf(web.headers, scope()), body: String(value(web.body)) });
      const text = await response.text();
      if (!response.ok) throw new Error(`AskAgain answered ${response.status}: ${text}`);
      activities.AskAgain = { output: JSON.parse(text) as unknown };
      for (const script of step('KeepRenewedToken').typeProperties.scripts) await query(forDuckDb(String(value(script.text))));
    }
    return { requests, staged, askedAgain };
  }, target.warehouse);
}
