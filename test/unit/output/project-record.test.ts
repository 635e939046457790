import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { buildAllowlist } from '../../../shared/access/allowlist.js';
import { DATAPOINTS } from '../../../shared/access/datapoints.js';
import { CONTRACTS } from '../../../shared/model/contracts.js';
import { INVOICES } from '../../../shared/model/invoices.js';
import { projectRecord } from '../../../shared/output/project-record.js';

const allowlist = buildAllowlist(DATAPOINTS);
const ROLES = Object.keys(DATAPOINTS);
const names = (fields: readonly { name: string }[]) => fields.map((field) => field.name);

describe('projectRecord', () => {
  it('keeps exactly the view\'s fields in the view\'s order, whatever else the record carries', () => {
    fc.assert(fc.property(
      fc.subarray(ROLES),
      fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue(), { maxKeys: 12 }),
      fc.constantFrom(CONTRACTS, INVOICES),
      (roles, extra, resource) => {
        const view = allowlist.view(resource, roles);
        const full = Object.fromEntries(resource.fields.map((field) => [field.name, `v-${field.name}`]));
        const record = { ...extra, ...full, tenantId: 'contoso', id: 'doc-1', lines: [{ lineNumber: 1, unitPrice: 9, secret: 's' }] };
        const projected = projectRecord(record, view);
        const expectedKeys = [...names(view.fields), ...(resource.lines ? [resource.lines.member] : [])];
        expect(Object.keys(projected)).toEqual(expectedKeys);
        for (const field of view.fields) expect(projected[field.name]).toBe(`v-${field.name}`);
        if (resource.lines) {
          for (const line of projected.lines as Record<string, unknown>[]) expect(Object.keys(line)).toEqual(names(view.lineFields));
        }
      },
    ), { numRuns: 200 });
  });

  it('turns a missing visible field into null and a missing lines array into an empty one', () => {
    const view = allowlist.view(INVOICES, ['Data.Read']);
    const projected = projectRecord({ invoiceId: 'I1' }, view);
    expect(projected.invoiceId).toBe('I1');
    expect(projected.status).toBeNull();
    expect(projected.lines).toEqual([]);
  });

  it('passes a record that already is exactly the view through unchanged, and copies one that is not', () => {
    const view = allowlist.view(CONTRACTS, ['Data.Read']);
    const exact = Object.fromEntries(view.fields.map((field) => [field.name, 'x']));
    expect(projectRecord(exact, view)).toBe(exact);
    const reordered = Object.fromEntries([...view.fields].reverse().map((field) => [field.name, 'x']));
    const copy = projectRecord(reordered, view);
    expect(copy).not.toBe(reordered);
    expect(Object.keys(copy)).toEqual(names(view.fields));
  });

  it('does not pass through a record whose prototype carries extra properties', () => {
    const view = allowlist.view(CONTRACTS, ['Data.Read']);
    const exact = Object.fromEntries(view.fields.map((field) => [field.name, 'x']));
    const sneaky = Object.assign(Object.create({ ownerEmail: 'hidden@example.com' }) as Record<string, unknown>, exact);
    const projected = projectRecord(sneaky, view);
    expect(projected).not.toBe(sneaky);
    expect(JSON.parse(JSON.stringify(projected))).toEqual(exact);
  });
});
