import { describe, expect, it } from '@jest/globals';
import { buildAllowlist } from '../../../shared/access/allowlist.js';
import { DATAPOINTS } from '../../../shared/access/datapoints.js';
import { CONTRACTS } from '../../../shared/model/contracts.js';
import { INVOICES } from '../../../shared/model/invoices.js';

const allowlist = buildAllowlist(DATAPOINTS);
const names = (fields: readonly { name: string }[]) => fields.map((field) => field.name);

describe('the roles → datapoints allowlist', () => {
  it('gives Data.Read the basic contract fields in model order, no Drafts', () => {
    const view = allowlist.view(CONTRACTS, ['Data.Read']);
    expect(names(view.fields)).toEqual(['contractId', 'contractWorkspaceID', 'title', 'status', 'effectiveDate', 'expirationDate', 'createdDate', 'updatedDate']);
    expect(view.drafts).toBe(false);
    expect(view.lineFields).toEqual([]);
  });

  it('adds the financial fields with Data.Read.Financials', () => {
    const view = allowlist.view(INVOICES, ['Data.Read', 'Data.Read.Financials']);
    expect(names(view.fields)).toEqual(['invoiceId', 'invoiceNumber', 'contractId', 'contractWorkspaceID', 'status', 'invoiceDate', 'dueDate', 'currency', 'netAmount', 'taxAmount', 'totalAmount', 'createdDate', 'updatedDate']);
    expect(names(view.lineFields)).toEqual(['lineNumber', 'description', 'commodityCode', 'quantity', 'unitOfMeasure', 'unitPrice', 'netAmount', 'taxAmount']);
    expect(view.sortable).toContain('totalAmount');
  });

  it('adds the supplier fields with Data.Read.Suppliers, and no line fields', () => {
    const view = allowlist.view(INVOICES, ['Data.Read', 'Data.Read.Suppliers']);
    expect(names(view.fields)).toEqual(expect.arrayContaining(['supplierId', 'supplierName', 'purchaseOrderId']));
    expect(names(view.fields)).not.toContain('netAmount');
    expect(names(view.lineFields)).toEqual(['lineNumber', 'description', 'commodityCode', 'quantity', 'unitOfMeasure']);
    expect(allowlist.view(CONTRACTS, ['Data.Read', 'Data.Read.Suppliers']).sortable).toContain('supplierName');
  });

  it('shows Drafts only with Data.Read.Drafts, without adding fields', () => {
    const view = allowlist.view(CONTRACTS, ['Data.Read', 'Data.Read.Drafts']);
    expect(view.drafts).toBe(true);
    expect(view.fields).toEqual(allowlist.view(CONTRACTS, ['Data.Read']).fields);
  });

  it('is the union over all roles and never includes tenantId or id', () => {
    const all = allowlist.view(CONTRACTS, Object.keys(DATAPOINTS));
    expect(all.fields).toHaveLength(13);
    expect(names(all.fields)).not.toContain('tenantId');
    expect(names(all.fields)).not.toContain('id');
  });

  it('ignores unknown roles, and inherited object keys are not roles', () => {
    expect(allowlist.view(CONTRACTS, ['Data.Write', 'toString', '__proto__']).fields).toEqual([]);
  });

  it('refuses a configuration naming an unknown field', () => {
    expect(() => buildAllowlist({ ...DATAPOINTS, 'Data.Read.Bad': { fields: { contracts: ['tenantId'] }, drafts: false } })).toThrow(TypeError);
  });

  it('refuses a configuration naming a group no resource has', () => {
    expect(() => buildAllowlist({ ...DATAPOINTS, 'Data.Read.Bad': { fields: { contractz: ['contractId'] }, drafts: false } })).toThrow(/contractz/);
  });

  it('refuses a configuration without the base role', () => {
    const { ['Data.Read']: _base, ...rest } = DATAPOINTS;
    expect(() => buildAllowlist(rest)).toThrow(/Data\.Read/);
  });
});

describe('every combination of roles', () => {
  const roles = Object.keys(DATAPOINTS);
  const subsets = Array.from({ length: 2 ** roles.length }, (_, mask) => roles.filter((_, bit) => mask & (1 << bit)));

  it.each(subsets.map((subset) => [subset.join(' + ') || '(none)', subset] as const))('%s sees exactly the union of its roles', (_label, subset) => {
    for (const resource of [CONTRACTS, INVOICES]) {
      const view = allowlist.view(resource, subset);
      const expected = new Set(subset.flatMap((role) => DATAPOINTS[role]!.fields[resource.name] ?? []));
      expect(new Set(names(view.fields))).toEqual(expected);
      expect(view.drafts).toBe(subset.includes('Data.Read.Drafts'));
      const expectedLines = new Set(resource === INVOICES ? subset.flatMap((role) => DATAPOINTS[role]!.fields.invoiceLines ?? []) : []);
      expect(new Set(names(view.lineFields))).toEqual(expectedLines);
      for (const field of view.sortable) expect(expected.has(field)).toBe(true);
    }
  });
});

describe('views', () => {
  it('are frozen, and a role never stands for two', () => {
    const allowlist = buildAllowlist(DATAPOINTS);
    const full = allowlist.view(CONTRACTS, ['Data.Read', 'Data.Read.Financials']);
    expect(Object.isFrozen(full) && Object.isFrozen(full.fields)).toBe(true);
    // One role whose name joins two others with a separator must not get their view.
    const forged = allowlist.view(CONTRACTS, ['Data.Read', 'Data.Read\u0000Data.Read.Financials']);
    expect(forged.fields.map((field) => field.name)).not.toContain('contractAmount');
    expect(full.fields.map((field) => field.name)).toContain('contractAmount');
  });
});
