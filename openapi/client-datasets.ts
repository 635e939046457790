/**
 * The pull client's `client/src/datasets.ts`, written from the OpenAPI document it already takes
 * its types from (`npm run openapi`): per operation its path, the media type of its export and the
 * entries of a zip export, the date pairs it can be split on, and its other filters. So the client
 * never restates a resource; a test holds the committed file equal to what this writes.
 */
import type { OpenAPIV3_1 } from 'openapi-types';

/** Where the client's dataset list is written (relative to the repository). */
export const CLIENT_DATASETS_FILE = 'client/src/datasets.ts';

/** Where the Python loader's dataset list is written, from the same datasets. */
export const PYTHON_DATASETS_FILE = 'python/src/summary_client/_datasets.py';

const CONTROL = new Set(['page', 'pageSize', 'orderBy', 'order']);
const OPERATION = /^\/v1\/([a-z][a-z0-9]*)\/summary$/;
/** The export jobs' and the deltas' paths: a dataset is its summary operation's. */
const EXPORT_JOB = /^\/v1\/(?:[a-z][a-z0-9]*\/(?:exports|delta)|exports\/\{id\})$/;

interface Dataset {
  readonly path: string;
  /** Its export jobs' kick-off (`/v1/<name>/exports`), or null where the document has none. */
  readonly jobsPath: string | null;
  /** Its delta operation (`/v1/<name>/delta`), or null where the document has none. */
  readonly deltaPath: string | null;
  /** The member that names a record (a delta's removal rows hold it alone). */
  readonly idField: string;
  readonly exportType: string;
  readonly zipEntries: readonly string[] | null;
  readonly dateBy: readonly string[];
  /** The field each date pair is on (`created` → createdDate): a record's window is its value's day. */
  readonly dateFields: Readonly<Record<string, string>>;
  readonly filters: readonly string[];
}

/** The datasets of the document's summary operations, by name. */
export function datasetsOf(document: OpenAPIV3_1.Document): { datasets: Record<string, Dataset>; maxPageSize: number } {
  const datasets: Record<string, Dataset> = {};
  let maxPageSize: number | undefined;
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    if (EXPORT_JOB.test(path)) continue;
    const name = OPERATION.exec(path)?.[1];
    const operation = item?.post;
    if (!name || !operation) throw new TypeError(`${path}: not a summary operation (POST /v1/<name>/summary)`);
    const content = (operation.responses?.['200'] as OpenAPIV3_1.ResponseObject | undefined)?.content ?? {};
    const zip = Object.entries(content).find(([, media]) => Array.isArray((media as { 'x-zip-entries'?: unknown })['x-zip-entries']));
    const exportType = zip?.[0] ?? Object.keys(content).find((type) => type !== 'application/json');
    if (!exportType) throw new TypeError(`${path}: no export media type in its 200 answer`);
    const body = (operation.requestBody as OpenAPIV3_1.RequestBodyObject).content['application/json']!.schema as OpenAPIV3_1.ReferenceObject;
    const schema = document.components!.schemas![body.$ref.split('/').at(-1)!] as OpenAPIV3_1.SchemaObject;
    const members = Object.keys(schema.properties ?? {});
    const jobsPath = `/v1/${name}/exports`;
    const deltaPath = `/v1/${name}/delta`;
    datasets[name] = {
      path,
      jobsPath: document.paths?.[jobsPath]?.post ? jobsPath : null,
      deltaPath: document.paths?.[deltaPath]?.post ? deltaPath : null,
      idField: idFieldOf(document, operation, path),
      exportType,
      zipEntries: zip ? ((zip[1] as { 'x-zip-entries': string[] })['x-zip-entries']) : null,
      dateBy: members.filter((member) => member.endsWith('From')).map((member) => member.slice(0, -'From'.length)),
      dateFields: Object.fromEntries(members.filter((member) => member.endsWith('From')).map((member) => [member.slice(0, -'From'.length), dateFieldOf(schema, member, path)])),
      filters: members.filter((member) => !/(From|To)$/.test(member) && !CONTROL.has(member)),
    };
    const pageSize = (schema.properties?.pageSize as OpenAPIV3_1.SchemaObject | undefined)?.maximum;
    if (typeof pageSize !== 'number' || (maxPageSize !== undefined && pageSize !== maxPageSize)) throw new TypeError(`${path}: pageSize has no maximum, or another than the other operations`);
    maxPageSize = pageSize;
  }
  return { datasets, maxPageSize: maxPageSize ?? 0 };
}

/** The field a date pair's member is on (its `x-summary-field`). */
function dateFieldOf(schema: OpenAPIV3_1.SchemaObject, member: string, path: string): string {
  const field = (schema.properties?.[member] as { 'x-summary-field'?: unknown } | undefined)?.['x-summary-field'];
  if (typeof field !== 'string') throw new TypeError(`${path}: ${member} does not say the field it is on (x-summary-field)`);
  return field;
}

/**
 * The member that names a record: the one its record schema requires first that ends in `Id` and
 * is the resource's own (`contractId` of a contract; an invoice's `invoiceId`, not its contract's).
 */
function idFieldOf(document: OpenAPIV3_1.Document, operation: OpenAPIV3_1.OperationObject, path: string): string {
  const page = ((operation.responses?.['200'] as OpenAPIV3_1.ResponseObject | undefined)?.content?.['application/json']?.schema as OpenAPIV3_1.ReferenceObject | undefined)?.$ref;
  const envelope = page ? document.components!.schemas![page.split('/').at(-1)!] as OpenAPIV3_1.SchemaObject : undefined;
  const items = (envelope?.properties?.data as OpenAPIV3_1.ArraySchemaObject | undefined)?.items as OpenAPIV3_1.ReferenceObject | undefined;
  const record = items?.$ref ? document.components!.schemas![items.$ref.split('/').at(-1)!] as OpenAPIV3_1.SchemaObject : undefined;
  const singular = OPERATION.exec(path)![1]!.replace(/s$/, '');
  const id = `${singular}Id`;
  if (!record?.properties?.[id]) throw new TypeError(`${path}: its records have no ${id}`);
  return id;
}

/** The text of client/src/datasets.ts for a document. */
export function clientDatasetsSource(document: OpenAPIV3_1.Document): string {
  const { datasets, maxPageSize } = datasetsOf(document);
  const list = (values: readonly string[]) => `[${values.map((value) => `'${value}'`).join(', ')}]`;
  const entries = Object.entries(datasets).map(([name, dataset]) => `  ${name}: {
    path: '${dataset.path}',
    /** Its export jobs' kick-off, or null where the service has none. */
    jobsPath: ${dataset.jobsPath ? `'${dataset.jobsPath}'` : 'null'},
    /** Its delta operation, or null where the service has none. */
    deltaPath: ${dataset.deltaPath ? `'${dataset.deltaPath}'` : 'null'},
    /** The member that names a record (a delta's removal rows hold it alone). */
    idField: '${dataset.idField}',
    exportType: '${dataset.exportType}',
    /** The export is one Parquet file (null) or a zip of these Parquet entries. */
    zipEntries: ${dataset.zipEntries ? list(dataset.zipEntries) : 'null'},
    /** The date pairs (\`<by>From\`/\`<by>To\`) a range can be split on. */
    dateBy: ${list(dataset.dateBy)},
    /** The field each date pair is on: a record's window is its value's day (its first ten characters, as the service compares). */
    dateFields: { ${Object.entries(dataset.dateFields).map(([by, field]) => `${by}: '${field}'`).join(', ')} },
    /** The filters besides the date pairs (\`--filter name=value\`). */
    filters: ${list(dataset.filters)},
  },`).join('\n');
  const dateBy = [...new Set(Object.values(datasets).flatMap((dataset) => dataset.dateBy))];
  return `// Generated by \`npm run openapi\` from openapi/openapi.json (openapi/client-datasets.ts): do not edit.
/**
 * What the client pulls: per dataset its operation, the media type of its export and the files in
 * it, the date pairs it can be split on and its other filters. Everything else about the
 * operations comes from the generated types in api.ts.
 */
export const DATASETS = {
${entries}
} as const;

/** The largest \`pageSize\` the service takes (the document's maximum, its default MAX_PAGE_SIZE). */
export const MAX_PAGE_SIZE = ${maxPageSize};

export type DatasetName = keyof typeof DATASETS;
export type DateBy = ${dateBy.map((by) => `'${by}'`).join(' | ')};
export type Format = 'parquet' | 'jsonl';

export function isDatasetName(value: string): value is DatasetName {
  return Object.hasOwn(DATASETS, value);
}

/** The body members of a date pair: \`created\` → createdFrom/createdTo. */
export function dateMembers(by: DateBy): { from: string; to: string } {
  return { from: \`\${by}From\`, to: \`\${by}To\` };
}
`;
}

/** The text of the Python loader's _datasets.py for a document: the same facts as datasets.ts. */
export function pythonDatasetsSource(document: OpenAPIV3_1.Document): string {
  const { datasets } = datasetsOf(document);
  const list = (values: readonly string[]) => `(${values.map((value) => `"${value}"`).join(', ')}${values.length === 1 ? ',' : ''})`;
  const entries = Object.entries(datasets).map(([name, dataset]) => `    "${name}": Dataset(
        path="${dataset.path}",
        jobs_path=${dataset.jobsPath ? `"${dataset.jobsPath}"` : 'None'},
        delta_path=${dataset.deltaPath ? `"${dataset.deltaPath}"` : 'None'},
        id_field="${dataset.idField}",
        export_type="${dataset.exportType}",
        zip_entries=${dataset.zipEntries ? list(dataset.zipEntries) : 'None'},
        date_by=${list(dataset.dateBy)},
        filters=${list(dataset.filters)},
    ),`).join('\n');
  return `# Generated by \`npm run openapi\` from openapi/openapi.json (openapi/client-datasets.ts): do not edit.
"""What the loader reads: per dataset its operation, the media type of its export and the Parquet
entries of a zip export, the date pairs a range can be split on, and its other filters."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass(frozen=True)
class Dataset:
    path: str
    #: Its export jobs' kick-off, or None where the service has none.
    jobs_path: Optional[str]
    #: Its delta operation, or None where the service has none.
    delta_path: Optional[str]
    #: The member that names a record (a delta's removal rows hold it alone).
    id_field: str
    export_type: str
    #: The export is one Parquet file (None) or a zip of these Parquet entries.
    zip_entries: Optional[Tuple[str, ...]]
    #: The date pairs (\`<by>From\`/\`<by>To\`) a range can be split on.
    date_by: Tuple[str, ...]
    #: The filters besides the date pairs.
    filters: Tuple[str, ...]


DATASETS = {
${entries}
}
`;
}
