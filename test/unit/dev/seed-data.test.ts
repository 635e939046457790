import { describe, expect, it } from '@jest/globals';
import { CONTRACTS } from '../../../shared/model/contracts.js';
import { INVOICES } from '../../../shared/model/invoices.js';
import { SEED_PERIOD, generateContracts, generateInvoices, statusesOf } from '../../../dev/seed-data.js';

const contracts = generateContracts('contoso', 300);
const invoices = generateInvoices('contoso', 300, contracts);
const toCents = (amount: number): number => Math.round(amount * 100);
const DATE = /^\d{4}-\d{2}-\d{2}$/;

describe('generateContracts', () => {
  it('gives the same documents for the same tenant, count and seed', () => {
    expect(generateContracts('contoso', 300)).toEqual(contracts);
    expect(generateContracts('contoso', 50, 7)).toEqual(generateContracts('contoso', 50, 7));
  });

  it('gives different documents for another seed or another tenant', () => {
    expect(generateContracts('contoso', 50, 7).map((c) => c.createdDate)).not.toEqual(contracts.slice(0, 50).map((c) => c.createdDate));
    expect(generateContracts('fabrikam', 50).map((c) => c.createdDate)).not.toEqual(contracts.slice(0, 50).map((c) => c.createdDate));
  });

  it('uses ids that are the contract id and unique across tenants', () => {
    const ids = [...contracts, ...generateContracts('fabrikam', 300)].map((c) => c.id);
    expect(new Set(ids).size).toBe(600);
    for (const contract of contracts) expect(contract.id).toBe(contract.contractId);
  });

  it('has every status once there are at least six contracts', () => {
    expect(new Set(contracts.map((c) => c.status))).toEqual(new Set(statusesOf(CONTRACTS)));
    expect(new Set(generateContracts('contoso', 6).map((c) => c.status))).toEqual(new Set(statusesOf(CONTRACTS)));
  });

  it('formats workspace ids as CW and 4 to 10 digits, unique within the tenant', () => {
    for (const contract of contracts) expect(contract.contractWorkspaceID).toMatch(/^CW\d{4,10}$/);
    expect(new Set(contracts.map((c) => c.contractWorkspaceID)).size).toBe(contracts.length);
  });

  it('keeps amounts to the cent, dates as YYYY-MM-DD and sometimes no expiration date', () => {
    for (const contract of contracts) {
      expect(toCents(contract.contractAmount) / 100).toBe(contract.contractAmount);
      expect(contract.effectiveDate).toMatch(DATE);
      if (contract.expirationDate !== null) expect(contract.expirationDate > contract.effectiveDate).toBe(true);
    }
    expect(contracts.some((c) => c.expirationDate === null)).toBe(true);
  });

  it('rejects a tenant name that would not read well in an id', () => {
    expect(() => generateContracts('Contoso Ltd', 1)).toThrow(TypeError);
  });
});

describe('generateInvoices', () => {
  it('gives the same documents for the same inputs', () => {
    expect(generateInvoices('contoso', 300, contracts)).toEqual(invoices);
  });

  it('has every status once there are at least six invoices', () => {
    expect(new Set(invoices.map((i) => i.status))).toEqual(new Set(statusesOf(INVOICES)));
  });

  it('links some invoices to a contract of the same tenant and leaves others without one', () => {
    const byId = new Map(contracts.map((c) => [c.contractId, c]));
    const linked = invoices.filter((i) => i.contractId !== null);
    expect(linked.length).toBeGreaterThan(0);
    expect(linked.length).toBeLessThan(invoices.length);
    for (const invoice of linked) {
      expect(byId.get(invoice.contractId ?? '')?.contractWorkspaceID).toBe(invoice.contractWorkspaceID);
    }
    for (const invoice of invoices.filter((i) => i.contractId === null)) expect(invoice.contractWorkspaceID).toBeNull();
  });

  it('ignores contracts of other tenants', () => {
    const others = generateContracts('fabrikam', 20);
    expect(generateInvoices('contoso', 20, others).every((i) => i.contractId === null)).toBe(true);
  });

  it('numbers 1 to 8 lines from 1 and adds their amounts up to the header exactly', () => {
    for (const invoice of invoices) {
      expect(invoice.lines.length).toBeGreaterThanOrEqual(1);
      expect(invoice.lines.length).toBeLessThanOrEqual(8);
      expect(invoice.lines.map((l) => l.lineNumber)).toEqual(invoice.lines.map((_, index) => index + 1));
      const net = invoice.lines.reduce((sum, l) => sum + toCents(l.netAmount), 0);
      const tax = invoice.lines.reduce((sum, l) => sum + toCents(l.taxAmount), 0);
      expect(toCents(invoice.netAmount)).toBe(net);
      expect(toCents(invoice.taxAmount)).toBe(tax);
      expect(toCents(invoice.totalAmount)).toBe(net + tax);
      expect(toCents(invoice.totalAmount) / 100).toBe(invoice.totalAmount);
    }
  });

  it('keeps invoice and due dates as YYYY-MM-DD with the due date after the invoice date', () => {
    for (const invoice of invoices) {
      expect(invoice.invoiceDate).toMatch(DATE);
      expect(invoice.dueDate > invoice.invoiceDate).toBe(true);
    }
  });
});

describe('seed timestamps', () => {
  const all = [...contracts, ...invoices, ...generateContracts('fabrikam', 300)];

  it('are ISO 8601 UTC and inside the seed period, updated never before created', () => {
    for (const doc of all) {
      expect(new Date(doc.createdDate).toISOString()).toBe(doc.createdDate);
      expect(new Date(doc.updatedDate).toISOString()).toBe(doc.updatedDate);
      expect(doc.createdDate >= SEED_PERIOD.from).toBe(true);
      expect(doc.updatedDate <= SEED_PERIOD.to).toBe(true);
      expect(doc.updatedDate >= doc.createdDate).toBe(true);
    }
  });

  it('spread over both years of the period', () => {
    const months = new Set(all.map((doc) => doc.createdDate.slice(0, 7)));
    expect(months.has('2025-01')).toBe(true);
    expect(months.has('2026-10')).toBe(true);
    expect(months.size).toBe(22);
  });
});

describe('seed text', () => {
  it('includes quotes, apostrophes and non-ASCII characters', () => {
    const text = [...contracts.flatMap((c) => [c.title, c.supplierName]), ...invoices.map((i) => i.supplierName)];
    expect(text.some((t) => t.includes("'"))).toBe(true);
    expect(text.some((t) => t.includes('"'))).toBe(true);
    expect(text.some((t) => /[^\x00-\x7f]/.test(t))).toBe(true);
  });
});
