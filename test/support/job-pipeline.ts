/**
 * The export-job pipeline of a no-code recipe, run the way its engine would run it, against a
 * service on loopback and a folder standing for the Lake: docs/recipes/data-factory.json's
 * SummaryJobToLake, or the Fabric copy of it (docs/recipes/fabric/). Every request's URL, headers and
 * body are the pipeline's own expressions evaluated (adf-expression.ts), the activities in their
 * order (the If on last run's manifest, the kick-off, the Until loop, the manifest, the Delete of the
 * manifest and of each exported window's files, the ForEach of copies by URL, the manifest saved).
 * What differs between the two engines (where a request goes, where a Lake file is) is a dialect.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { evaluate, headersOf, valueOf as value, type ExpressionScope, type PipelineValue as Value } from './adf-expression.js';
import { activity, defaults, resource } from './data-factory-recipe.js';
import { CONNECTIONS, connectionOf, content, fabricActivity, fabricDefaults } from './fabric-recipe.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Step = Record<string, any>;

/** What one run did. */
export interface PipelineRun {
  /** The kick-off's status and Retry-After. */
  readonly started: { readonly status: number; readonly retryAfter: string | null; readonly body: unknown };
  /** Status calls made by the Until loop (the final Manifest call not counted). */
  readonly polls: number;
  /** Files copied from storage into the Lake, relative to it. */
  readonly copied: readonly string[];
  /** Files the Delete activities removed, relative to the Lake. */
  readonly deleted: readonly string[];
  readonly manifest: any;
}

export interface PipelineTarget {
  /** The service's base URL, ending in a slash (Data Factory's baseUrl parameter; Fabric's service connection). */
  readonly baseUrl: string;
  /** The export storage's blob endpoint, ending in a slash (Fabric's storage connection and storageUrl parameter). */
  readonly storageUrl: string;
  readonly token: string;
  readonly subscriptionKey: string;
  readonly apiKey: string;
  /** The folder standing for the Lake (Data Factory's `summary` file system; Fabric's Lakehouse Files). */
  readonly lake: string;
  readonly parameters?: Record<string, unknown>;
}

/** What differs between the engines. */
interface Dialect {
  readonly parameters: Record<string, unknown>;
  readonly variables: Record<string, unknown>;
  step(name: string): Step;
  /** A Web activity's URL. */
  webUrl(step: Step, scope: ExpressionScope): string;
  /** The Lake file (relative) a GetMetadata, Lookup or Delete names; `file` over the dataset's own name. */
  lakeFile(step: Step, scope: ExpressionScope, file?: string): string;
  /** What CopyFile reads, and the Lake file it writes (relative). */
  copy(step: Step, scope: ExpressionScope): { url: string; file: string };
  /** What SaveManifest reads with. */
  save(step: Step, scope: ExpressionScope): { url: string; headers: Record<string, string> };
}

export type Engine = 'data-factory' | 'fabric';

function dataFactory(target: PipelineTarget): Dialect {
  const PIPELINE = 'SummaryJobToLake';
  const pipeline = resource(PIPELINE).properties;
  const lakeFile = (reference: any, scope: ExpressionScope, file?: string) => join(String(value(reference.parameters.folder, scope)), file ?? resource(reference.referenceName).properties.typeProperties.location.fileName);
  return {
    parameters: { ...defaults(PIPELINE), baseUrl: target.baseUrl },
    variables: initial(pipeline.variables),
    step: (name) => activity(PIPELINE, name),
    webUrl: (step, scope) => String(value(step.typeProperties.url, scope)),
    lakeFile: (step, scope, file) => lakeFile(step.typeProperties.dataset, scope, file),
    copy: (step, scope) => {
      const output = step.outputs[0].parameters;
      // The HTTP linked service of the files: anonymous, the URL as it is.
      return { url: String(value(step.inputs[0].parameters.url, scope)), file: join(String(value(output.folder, scope)), String(value(output.file, scope))) };
    },
    save: (step, scope) => {
      // The REST connector's GET of the job: the linked service adds the token and the keys.
      const job = resource(step.inputs[0].referenceName).properties.typeProperties.relativeUrl;
      const id = String(value(step.inputs[0].parameters.id, scope));
      return { url: `${target.baseUrl}${String(evaluate(job.value, { dataset: { id } }))}`, headers: { authorization: `Bearer ${target.token}`, 'ocp-apim-subscription-key': target.subscriptionKey, 'x-api-key': target.apiKey } };
    },
  };
}

function fabric(target: PipelineTarget): Dialect {
  // The connections the user creates (docs/consuming.md): their base URLs here.
  const bases: Record<string, string> = { [CONNECTIONS.service]: target.baseUrl, [CONNECTIONS.serviceRest]: target.baseUrl, [CONNECTIONS.storage]: target.storageUrl };
  const base = (step: Step) => {
    const found = bases[connectionOf(step) ?? ''];
    if (found === undefined) throw new Error(`${String(step.name)} names a connection the recipe's docs do not create`);
    return found;
  };
  const location = (settings: any, scope: ExpressionScope, file?: string) => join(String(value(settings.typeProperties.location.folderPath, scope)), file ?? String(value(settings.typeProperties.location.fileName, scope)));
  return {
    parameters: { ...fabricDefaults(), storageUrl: target.storageUrl },
    variables: initial(content.properties.variables),
    step: fabricActivity,
    webUrl: (step, scope) => `${base(step)}${String(value(step.typeProperties.relativeUrl, scope))}`,
    lakeFile: (step, scope, file) => location(step.typeProperties.datasetSettings, scope, file),
    copy: (step, scope) => {
      const source = step.typeProperties.source.datasetSettings;
      return { url: `${base(step)}${String(value(source.typeProperties.location.relativeUrl, scope))}`, file: location(step.typeProperties.sink.datasetSettings, scope) };
    },
    save: (step, scope) => {
      const source = step.typeProperties.source;
      // The REST connection is anonymous: the token and the keys are the source's own headers.
      const headers = headersOf(source.additionalHeaders as Record<string, Value>, scope);
      return { url: `${base(step)}${String(value(source.datasetSettings.typeProperties.relativeUrl, scope))}`, headers };
    },
  };
}

function initial(variables: Record<string, { defaultValue: unknown }>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(variables).map(([name, variable]) => [name, variable.defaultValue]));
}

/** Runs the pipeline once; throws where the engine would fail the run (an answer other than 2xx). */
export async function runJobPipeline(target: PipelineTarget, engine: Engine = 'data-factory'): Promise<PipelineRun> {
  const dialect = engine === 'fabric' ? fabric(target) : dataFactory(target);
  const { step } = dialect;
  const parameters = { ...dialect.parameters, ...target.parameters };
  const { variables } = dialect;
  // Key Vault and the token endpoint stand outside: their answers are given.
  const activities: Record<string, any> = {
    GetToken: { output: { access_token: target.token } },
    GetSubscriptionKey: { output: { value: target.subscriptionKey } },
    GetApiKey: { output: { value: target.apiKey } },
  };
  const scope = (extra: Partial<ExpressionScope> = {}): ExpressionScope => ({ parameters, variables, activities, ...extra });
  const inLake = (file: string) => join(target.lake, file);
  const web = async (name: string): Promise<{ status: number; headers: Headers; body: any }> => {
    const { typeProperties } = step(name);
    const headers = headersOf(typeProperties.headers as Record<string, Value>, scope());
    const body = typeProperties.body ? value(typeProperties.body, scope()) : undefined;
    const response = await fetch(dialect.webUrl(step(name), scope()), { method: typeProperties.method, headers, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }) });
    const text = await response.text();
    if (!response.ok) throw new Error(`${name} answered ${response.status}: ${text}`);
    return { status: response.status, headers: response.headers, body: JSON.parse(text) as unknown };
  };

  // The If on last run's manifest.
  const manifestFile = inLake(dialect.lakeFile(step('HasManifest'), scope()));
  activities.HasManifest = { output: { exists: existsSync(manifestFile) } };
  if (value(step('IfManifest').typeProperties.expression, scope()) === true) {
    if (inLake(dialect.lakeFile(step('LastManifest'), scope())) !== manifestFile) throw new Error('LastManifest reads another file than HasManifest looked for');
    activities.LastManifest = { output: { firstRow: JSON.parse(readFileSync(manifestFile, 'utf8')) as unknown } };
    variables.etags = value(step('KeepEtags').typeProperties.value, scope());
  }
  const start = await web('StartJob');
  activities.StartJob = { output: start.body };
  let polls = 0;
  const until = step('UntilCompleted').typeProperties;
  while (value(until.expression, scope()) !== true) {
    if (++polls > 20) throw new Error('the Until loop did not end');
    activities.Status = { output: (await web('Status')).body };
    variables.status = value(step('KeepStatus').typeProperties.value, scope());
  }
  activities.Manifest = { output: (await web('Manifest')).body };

  const deleted: string[] = [];
  const remove = (path: string) => {
    rmSync(path, { force: true });
    deleted.push(path.slice(target.lake.length + 1));
  };
  if (inLake(dialect.lakeFile(step('DropManifest'), scope())) !== manifestFile) throw new Error('DropManifest deletes another file than the manifest');
  if (existsSync(manifestFile)) remove(manifestFile);
  const filter = step('ExportedWindows').typeProperties;
  const exported = (value(filter.items, scope()) as unknown[]).filter((item) => value(filter.condition, scope({ item })) === true);
  activities.ExportedWindows = { output: { value: exported } };
  const clear = step('ClearWindow');
  for (const item of value(step('EachExportedWindow').typeProperties.items, scope()) as unknown[]) {
    const folder = inLake(dialect.lakeFile(clear, scope({ item }), ''));
    const pattern = String(value(clear.typeProperties.storeSettings.wildcardFileName, scope({ item })));
    const matcher = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    const walk = (dir: string): void => {
      if (!existsSync(dir)) return;
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory() && clear.typeProperties.storeSettings.recursive) walk(join(dir, entry.name));
        else if (entry.isFile() && matcher.test(entry.name)) remove(join(dir, entry.name));
      }
    };
    walk(folder);
  }

  const copied: string[] = [];
  for (const item of value(step('EachFile').typeProperties.items, scope()) as unknown[]) {
    const { url, file } = dialect.copy(step('CopyFile'), scope({ item }));
    const response = await fetch(url);
    if (!response.ok) throw new Error(`CopyFile answered ${response.status}`);
    mkdirSync(dirname(inLake(file)), { recursive: true });
    writeFileSync(inLake(file), Buffer.from(await response.arrayBuffer()));
    copied.push(file);
  }

  const save = dialect.save(step('SaveManifest'), scope());
  const saved = await fetch(save.url, { headers: save.headers });
  if (saved.status !== 200) throw new Error(`SaveManifest answered ${saved.status}`);
  mkdirSync(dirname(manifestFile), { recursive: true });
  writeFileSync(manifestFile, await saved.text());
  return { started: { status: start.status, retryAfter: start.headers.get('retry-after'), body: start.body }, polls, copied, deleted, manifest: activities.Manifest.output };
}
