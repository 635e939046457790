/**
 * What the service knows about one resource, in one place. Every layer reads a definition and
 * none names a resource: filters, SQL, projection, JSON, Parquet, container definitions, function
 * registration and the OpenAPI document all loop over `RESOURCES` (see docs/architecture.md, "How to
 * add a filter or a resource").
 */
import { deepFreeze } from '../util/deep-freeze.js';
import { unreachable } from '../util/unreachable.js';
import { FIELD_NAME, valuesOf, type FieldSpec } from './fields.js';
import type { MemberRule } from './member-rules.js';

/**
 * A filter that matches one value: `c.<field> = @<member>`. A caller who cannot see `field` cannot
 * use it (400 INVALID_FILTER): filtering on a hidden field would let it probe the hidden values.
 */
export interface EqualsFilter {
  readonly kind: 'equals';
  readonly member: string;
  readonly field: string;
  readonly rule: MemberRule;
}

/**
 * A From/To pair of calendar days on a date or timestamp field, both ends inclusive, at most one
 * calendar month long. The same visibility gate as `EqualsFilter` applies to its field.
 */
export interface DayRangeFilter {
  readonly kind: 'dayRange';
  readonly from: string;
  readonly to: string;
  readonly field: string;
}

/** A filter of a resource, as data. A `switch` over `kind` is exhaustive wherever it is read. */
export type FilterDefinition = EqualsFilter | DayRangeFilter;

/** Rows nested in each record (invoice lines): an array member in the stored document and in JSON. */
export interface LineTable {
  /** The array member, in stored documents and in JSON. */
  readonly member: string;
  readonly fields: readonly FieldSpec[];
  /** The roles → datapoints group that grants line fields. */
  readonly grant: string;
  /** Lines come out ordered by this field. */
  readonly orderBy: string;
  /** OpenAPI component name and description of one line. */
  readonly schemaName: string;
  readonly description: string;
}

/**
 * What a Parquet export of the resource is: one file, or a zip of the records table and the lines
 * table (each line with its record's id first), under these entry names.
 */
export type ExportShape =
  | { readonly kind: 'file' }
  | { readonly kind: 'zip'; readonly records: string; readonly lines: string };

/**
 * Fields that refer to a record of another resource which may itself be a Draft (an invoice's
 * contract). The Drafts rule hides a Draft's existence, not only its record: for a caller without
 * the Drafts grant such a reference reads null, and a filter on it matches nothing, unless the
 * stored `statusProperty` (the referenced record's status, kept on the document by its writer)
 * says it is not `value`. A reference whose status is missing reads null too: it fails closed.
 */
export interface DraftReferences {
  readonly fields: readonly string[];
  /** A stored property, never returned: the referenced record's status. */
  readonly statusProperty: string;
  /**
   * The referenced record's statuses that are known not to be Draft: the references show only for
   * these (fail closed: `draft`, a missing status or one this service does not know hides them).
   */
  readonly shownFor: readonly string[];
}

/** Names and words the OpenAPI document uses for the resource. */
export interface OpenApiNames {
  /** The operation's summary and its tag's description. */
  readonly summary: string;
  /** One record, in words ("contract"). */
  readonly recordNoun: string;
  readonly recordSchema: string;
  readonly recordDescription: string;
  readonly envelopeSchema: string;
  readonly filtersSchema: string;
}

/** One resource: its stored documents, what callers may filter and sort by, and how it is exported. */
export interface ResourceDefinition {
  /** The path segment (`/v1/<name>/summary`), the roles → datapoints group and the Parquet table name. */
  readonly name: string;
  /** The Cosmos container; every container is partitioned by `PARTITION_KEY_PATHS`. */
  readonly containerId: string;
  /** The field that identifies a record (also the document `id`). */
  readonly idField: string;
  /** Record fields in response order. `tenantId` and `id` are storage keys and never returned. */
  readonly fields: readonly FieldSpec[];
  readonly lines?: LineTable;
  /** Fields a caller may order by (only those it can also see). */
  readonly sortable: readonly string[];
  readonly defaultOrder: { readonly orderBy: string; readonly order: 'asc' | 'desc' };
  /**
   * Records whose `field` is `value` are hidden from callers without a drafts grant; fail closed:
   * those callers see only the field's other known values (a missing or unknown status hides the record).
   */
  readonly drafts?: { readonly field: string; readonly value: string };
  readonly draftReferences?: DraftReferences;
  readonly filters: readonly FilterDefinition[];
  readonly export: ExportShape;
  readonly openapi: OpenApiNames;
}

/** The document property that holds the data tenant; every container is partitioned by it first. */
export const TENANT_FIELD = 'tenantId';
/**
 * The hierarchical partition key of every resource container: the tenant, then the document id.
 * A tenant can then outgrow one logical partition's 20 GB (docs/store.md), while every query still
 * targets only that tenant's partitions through the key's prefix `[tenant]`.
 */
export const PARTITION_KEY_PATHS: readonly string[] = Object.freeze([`/${TENANT_FIELD}`, '/id']);

/** The full partition key of a stored document (for writes and point reads). */
export function partitionKeyOf(document: { readonly tenantId: string; readonly id: string }): [string, string] {
  return [document.tenantId, document.id];
}

/** Resource names are path segments, function names and container ids. */
const RESOURCE_NAME = /^[a-z][a-zA-Z0-9]{0,62}$/;

/**
 * Checks a definition's internal references and freezes it. Throws a TypeError naming the first
 * problem, so a bad definition fails at start-up (and in the unit tests), never on a request.
 */
export function defineResource(definition: ResourceDefinition): ResourceDefinition {
  const problem = (what: string) => new TypeError(`resource ${definition.name}: ${what}`);
  if (!RESOURCE_NAME.test(definition.name)) throw problem('the name must be a plain lower-camel identifier');
  const field = (name: string) => definition.fields.find((spec) => spec.name === name);
  const unique = (names: readonly string[], what: string) => {
    const duplicate = names.find((name, index) => names.indexOf(name) !== index);
    if (duplicate !== undefined) throw problem(`${what} ${duplicate} is declared twice`);
  };
  const identifiers = [...definition.fields, ...(definition.lines?.fields ?? [])].map((spec) => spec.name);
  if (definition.lines) identifiers.push(definition.lines.member);
  if (definition.draftReferences) identifiers.push(definition.draftReferences.statusProperty);
  const spliced = identifiers.find((name) => !FIELD_NAME.test(name));
  // Field names and the lines member are spliced into SQL, so they must be plain identifiers.
  if (spliced !== undefined) throw problem(`"${spliced}" is not a plain identifier`);
  unique(definition.fields.map((spec) => spec.name), 'field');
  if (!field(definition.idField)) throw problem(`idField ${definition.idField} is not a field`);
  for (const name of definition.sortable) if (!field(name)) throw problem(`sortable ${name} is not a field`);
  if (!definition.sortable.includes(definition.defaultOrder.orderBy)) throw problem('the default order is not sortable');
  const draftsField = definition.drafts && field(definition.drafts.field);
  if (definition.drafts && !(draftsField && valuesOf(draftsField)?.includes(definition.drafts.value))) {
    throw problem(`drafts: ${definition.drafts.field} is not a field that takes the value ${definition.drafts.value}`);
  }
  const references = definition.draftReferences;
  if (references) {
    for (const name of references.fields) {
      if (!field(name)?.nullable) throw problem(`draftReferences: ${name} is not a nullable field`);
      // Ordering by a hidden reference would reveal it.
      if (definition.sortable.includes(name)) throw problem(`draftReferences: ${name} must not be sortable`);
    }
    if (field(references.statusProperty)) throw problem(`draftReferences: ${references.statusProperty} is a returned field; it must be a stored property only`);
  }
  for (const filter of definition.filters) {
    const spec = field(filter.field);
    if (!spec) throw problem(`filter on ${filter.field}: not a field`);
    switch (filter.kind) {
      case 'equals':
        break;
      case 'dayRange':
        if (spec.kind !== 'date' && spec.kind !== 'timestamp') throw problem(`${filter.from}/${filter.to}: ${filter.field} is not a date or timestamp`);
        break;
      default:
        unreachable(filter, 'filter kind');
    }
  }
  unique(definition.filters.flatMap(membersOf), 'filter member');
  const { lines } = definition;
  if (lines) {
    unique(lines.fields.map((spec) => spec.name), 'line field');
    if (!lines.fields.some((spec) => spec.name === lines.orderBy)) throw problem(`lines.orderBy ${lines.orderBy} is not a line field`);
    if (lines.fields.some((spec) => spec.name === definition.idField)) throw problem(`the lines table starts with ${definition.idField}; no line field may have that name`);
    if (lines.grant === definition.name) throw problem('lines.grant must differ from the resource name');
    if (field(lines.member)) throw problem(`lines.member ${lines.member} is also a record field`);
  }
  if ((definition.export.kind === 'zip') !== (lines !== undefined)) throw problem('a zip export and lines go together');
  // Frozen all the way down except the zod schemas inside member rules, which zod itself mutates.
  for (const filter of definition.filters) Object.freeze(filter);
  const { filters, ...rest } = definition;
  deepFreeze(rest);
  Object.freeze(filters);
  return Object.freeze(definition);
}

/** The request members a filter reads. */
export function membersOf(filter: FilterDefinition): readonly string[] {
  switch (filter.kind) {
    case 'equals':
      return [filter.member];
    case 'dayRange':
      return [filter.from, filter.to];
  }
}

/** The spec of a record field of a resource. Throws a TypeError for a name that is not one. */
export function fieldSpec(resource: ResourceDefinition, name: string): FieldSpec {
  const spec = resource.fields.find((field) => field.name === name);
  if (!spec) throw new TypeError(`${name} is not a field of ${resource.name}`);
  return spec;
}

/** The record fields and the line fields (if any) of a resource, by datapoints group. */
export function fieldGroups(resource: ResourceDefinition): ReadonlyMap<string, readonly FieldSpec[]> {
  const groups = new Map<string, readonly FieldSpec[]>([[resource.name, resource.fields]]);
  if (resource.lines) groups.set(resource.lines.grant, resource.lines.fields);
  return groups;
}
