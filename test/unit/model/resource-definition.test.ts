import { describe, expect, it } from '@jest/globals';
import { CONTRACTS } from '../../../shared/model/contracts.js';
import { int32, text, timestamp } from '../../../shared/model/fields.js';
import { INVOICES } from '../../../shared/model/invoices.js';
import { textRule } from '../../../shared/model/member-rules.js';
import { defineResource, membersOf, type ResourceDefinition } from '../../../shared/model/resource-definition.js';
import { RESOURCES, resourceNamed } from '../../../shared/model/resources.js';

/** A small valid definition; each test breaks one thing in it. */
const valid: ResourceDefinition = {
  name: 'widgets',
  containerId: 'widgets',
  idField: 'widgetId',
  fields: [text('widgetId'), text('colour'), timestamp('createdDate')],
  sortable: ['widgetId', 'createdDate'],
  defaultOrder: { orderBy: 'createdDate', order: 'asc' },
  filters: [
    { kind: 'equals', member: 'colour', field: 'colour', rule: textRule() },
    { kind: 'dayRange', from: 'createdFrom', to: 'createdTo', field: 'createdDate' },
  ],
  export: { kind: 'file' },
  openapi: { summary: 'Widgets', recordNoun: 'widget', recordSchema: 'WidgetRecord', recordDescription: 'A widget.', envelopeSchema: 'WidgetsEnvelope', filtersSchema: 'WidgetsFilters' },
};

describe('defineResource', () => {
  it('accepts a consistent definition and freezes it', () => {
    const widgets = defineResource({ ...valid });
    expect(Object.isFrozen(widgets)).toBe(true);
    expect(Object.isFrozen(widgets.fields)).toBe(true);
    expect(Object.isFrozen(widgets.filters[0])).toBe(true);
  });

  const broken: [string, Record<string, unknown>][] = [
    ['a name that is not an identifier', { name: 'wid gets' }],
    ['an id field that is not a field', { idField: 'nope' }],
    ['a sortable name that is not a field', { sortable: ['widgetId', 'nope'] }],
    ['a default order that is not sortable', { defaultOrder: { orderBy: 'colour', order: 'asc' } }],
    ['a filter on a field that does not exist', { filters: [{ kind: 'equals', member: 'shade', field: 'shade', rule: textRule() }] }],
    ['a day range on a field that is not a date or timestamp', { filters: [{ kind: 'dayRange', from: 'colourFrom', to: 'colourTo', field: 'colour' }] }],
    ['two filters reading the same member', { filters: [{ kind: 'equals', member: 'colour', field: 'colour', rule: textRule() }, { kind: 'equals', member: 'colour', field: 'widgetId', rule: textRule() }] }],
    ['a drafts rule on a field without that value', { drafts: { field: 'colour', value: 'Draft' } }],
    ['a zip export without lines', { export: { kind: 'zip', records: 'a.parquet', lines: 'b.parquet' } }],
    ['lines without a zip export', { lines: { member: 'parts', fields: [int32('position')], grant: 'widgetParts', orderBy: 'position', schemaName: 'Part', description: 'A part.' } }],
    ['a field name that is not an identifier', { fields: [{ name: 'c.x', kind: 'string', nullable: false }] }],
  ];
  it.each(broken)('refuses %s', (_what, change) => {
    expect(() => defineResource({ ...valid, ...change } as ResourceDefinition)).toThrow(TypeError);
  });
});

describe('the service\'s resources', () => {
  it('are found by name and have distinct names, containers and OpenAPI names', () => {
    for (const resource of RESOURCES) expect(resourceNamed(resource.name)).toBe(resource);
    expect(() => resourceNamed('suppliers')).toThrow(TypeError);
    for (const key of ['name', 'containerId'] as const) expect(new Set(RESOURCES.map((resource) => resource[key])).size).toBe(RESOURCES.length);
    expect(new Set(RESOURCES.map((resource) => resource.openapi.recordSchema)).size).toBe(RESOURCES.length);
  });

  it('keep the filters callers rely on', () => {
    expect(CONTRACTS.filters.flatMap(membersOf)).toEqual(['contractWorkspaceID', 'createdFrom', 'createdTo', 'updatedFrom', 'updatedTo']);
    expect(INVOICES.filters.flatMap(membersOf)).toEqual(['contractWorkspaceID', 'createdFrom', 'createdTo', 'updatedFrom', 'updatedTo', 'invoiceDateFrom', 'invoiceDateTo', 'contractId', 'supplierId', 'status']);
  });
});
