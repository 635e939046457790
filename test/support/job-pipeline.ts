/**
 * docs/recipes/data-factory.json's SummaryJobToLake, run the way Data Factory would run it, against
 * a service on loopback and a folder standing for the Lake: every request's URL, headers and body
 * are the pipeline's own expressions evaluated (adf-expression.ts), the activities in their order
 * (the If on last run's manifest, the kick-off, the Until loop, the manifest, the Delete of the
 * manifest and of each exported window's files, the ForEach of copies by URL, the manifest saved).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { evaluate, type ExpressionScope } from './adf-expression.js';
import { activity, defaults, resource } from './data-factory-recipe.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Value = string | { value: string; type: 'Expression' };

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
  /** The service's base URL, ending in a slash, as the pipeline's baseUrl parameter. */
  readonly baseUrl: string;
  readonly token: string;
  readonly subscriptionKey: string;
  readonly apiKey: string;
  /** The folder standing for the Lake's `summary` file system. */
  readonly lake: string;
  readonly parameters?: Record<string, unknown>;
}

const PIPELINE = 'SummaryJobToLake';

function value(entry: Value, scope: ExpressionScope): unknown {
  return typeof entry === 'string' ? entry : evaluate(entry.value, scope);
}

/** Runs the pipeline once; throws where Data Factory would fail the run (an answer other than 2xx). */
export async function runJobPipeline(target: PipelineTarget): Promise<PipelineRun> {
  const parameters = { ...defaults(PIPELINE), baseUrl: target.baseUrl, ...target.parameters };
  const variables: Record<string, unknown> = Object.fromEntries(Object.entries(resource(PIPELINE).properties.variables as Record<string, { defaultValue: unknown }>).map(([name, variable]) => [name, variable.defaultValue]));
  const activities: Record<string, any> = {
    GetToken: { output: { access_token: target.token } },
    GetSubscriptionKey: { output: { value: target.subscriptionKey } },
    GetApiKey: { output: { value: target.apiKey } },
  };
  const scope = (extra: Partial<ExpressionScope> = {}): ExpressionScope => ({ parameters, variables, activities, ...extra });
  const lakePath = (reference: any, file?: string) => {
    const folder = String(value(reference.parameters.folder, scope()));
    const dataset = resource(reference.referenceName).properties.typeProperties.location;
    return join(target.lake, folder, file ?? dataset.fileName);
  };
  const web = async (name: string): Promise<{ status: number; headers: Headers; body: any }> => {
    const { typeProperties } = activity(PIPELINE, name);
    const headers = Object.fromEntries(Object.entries(typeProperties.headers as Record<string, Value>).map(([header, entry]) => [header, String(value(entry, scope()))]));
    const body = typeProperties.body ? value(typeProperties.body, scope()) : undefined;
    const response = await fetch(String(value(typeProperties.url, scope())), { method: typeProperties.method, headers, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }) });
    const text = await response.text();
    if (!response.ok) throw new Error(`${name} answered ${response.status}: ${text}`);
    return { status: response.status, headers: response.headers, body: JSON.parse(text) as unknown };
  };

  // The If on last run's manifest.
  const manifestFile = lakePath(activity(PIPELINE, 'HasManifest').typeProperties.dataset);
  activities.HasManifest = { output: { exists: existsSync(manifestFile) } };
  if (value(activity(PIPELINE, 'IfManifest').typeProperties.expression, scope()) === true) {
    activities.LastManifest = { output: { firstRow: JSON.parse(readFileSync(manifestFile, 'utf8')) as unknown } };
    variables.etags = value(activity(PIPELINE, 'KeepEtags').typeProperties.value, scope());
  }
  const start = await web('StartJob');
  activities.StartJob = { output: start.body };
  let polls = 0;
  const until = activity(PIPELINE, 'UntilCompleted').typeProperties;
  while (value(until.expression, scope()) !== true) {
    if (++polls > 20) throw new Error('the Until loop did not end');
    activities.Status = { output: (await web('Status')).body };
    variables.status = value(activity(PIPELINE, 'KeepStatus').typeProperties.value, scope());
  }
  activities.Manifest = { output: (await web('Manifest')).body };

  const deleted: string[] = [];
  const remove = (path: string) => {
    rmSync(path, { force: true });
    deleted.push(path.slice(target.lake.length + 1));
  };
  if (existsSync(manifestFile)) remove(manifestFile);
  const filter = activity(PIPELINE, 'ExportedWindows').typeProperties;
  const exported = (value(filter.items, scope()) as unknown[]).filter((item) => value(filter.condition, scope({ item })) === true);
  activities.ExportedWindows = { output: { value: exported } };
  const clear = activity(PIPELINE, 'ClearWindow').typeProperties;
  for (const item of value(activity(PIPELINE, 'EachExportedWindow').typeProperties.items, scope()) as unknown[]) {
    const folder = lakePath(clear.dataset, '');
    const pattern = String(value(clear.storeSettings.wildcardFileName, scope({ item })));
    const matcher = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    const walk = (dir: string): void => {
      if (!existsSync(dir)) return;
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory() && clear.storeSettings.recursive) walk(join(dir, entry.name));
        else if (entry.isFile() && matcher.test(entry.name)) remove(join(dir, entry.name));
      }
    };
    walk(folder);
  }

  const copy = activity(PIPELINE, 'CopyFile');
  const copied: string[] = [];
  for (const item of value(activity(PIPELINE, 'EachFile').typeProperties.items, scope()) as unknown[]) {
    const url = String(value(copy.inputs[0].parameters.url, scope({ item })));
    // The HTTP linked service of the files: anonymous, the URL as it is.
    const response = await fetch(url);
    if (!response.ok) throw new Error(`CopyFile answered ${response.status}`);
    const output = copy.outputs[0].parameters;
    const file = join(target.lake, String(value(output.folder, scope({ item }))), String(value(output.file, scope({ item }))));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, Buffer.from(await response.arrayBuffer()));
    copied.push(file.slice(target.lake.length + 1));
  }

  // SaveManifest: the REST connector's GET of the job (the linked service adds the token and the keys).
  const save = activity(PIPELINE, 'SaveManifest');
  const job = resource(save.inputs[0].referenceName).properties.typeProperties.relativeUrl;
  const id = String(value(save.inputs[0].parameters.id, scope()));
  const saved = await fetch(`${target.baseUrl}${String(evaluate(job.value, { dataset: { id } }))}`, { headers: { authorization: `Bearer ${target.token}`, 'ocp-apim-subscription-key': target.subscriptionKey, 'x-api-key': target.apiKey } });
  if (saved.status !== 200) throw new Error(`SaveManifest answered ${saved.status}`);
  mkdirSync(dirname(manifestFile), { recursive: true });
  writeFileSync(manifestFile, await saved.text());
  return { started: { status: start.status, retryAfter: start.headers.get('retry-after'), body: start.body }, polls, copied, deleted, manifest: activities.Manifest.output };
}
