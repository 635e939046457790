/**
 * Deterministic seed documents for the local stack and the tests: the same tenant, count and seed
 * always give the same documents, so a failing test can be replayed against the same data.
 * Money is computed in integer cents and only divided by 100 at the end, so totals add up exactly.
 */
import { CONTRACTS } from '../shared/model/contracts.js';
import { INVOICES } from '../shared/model/invoices.js';
import { valuesOf } from '../shared/model/fields.js';
import { fieldSpec, type ResourceDefinition } from '../shared/model/resource-definition.js';

/** The values a resource's status field takes. */
export function statusesOf(resource: ResourceDefinition): readonly string[] {
  return valuesOf(fieldSpec(resource, 'status')) ?? [];
}

// Type aliases, not interfaces: only aliases are assignable to the SDK's `JSONObject`.

/** A contract document as stored. */
export type ContractDocument = {
  id: string; tenantId: string; contractId: string; contractWorkspaceID: string; title: string;
  status: string; supplierId: string; supplierName: string; ownerEmail: string; currency: string;
  contractAmount: number; effectiveDate: string; expirationDate: string | null;
  createdDate: string; updatedDate: string;
};

/** An invoice line as stored. */
export type InvoiceLineDocument = {
  lineNumber: number; description: string; commodityCode: string; quantity: number;
  unitOfMeasure: string; unitPrice: number; netAmount: number; taxAmount: number;
};

/** An invoice document as stored. */
export type InvoiceDocument = {
  id: string; tenantId: string; invoiceId: string; invoiceNumber: string;
  contractId: string | null; contractWorkspaceID: string | null;
  /** The status of the contract the invoice belongs to (the writer keeps it current; docs/data-model.md). */
  contractStatus: string | null; purchaseOrderId: string;
  supplierId: string; supplierName: string; status: string; invoiceDate: string; dueDate: string;
  currency: string; netAmount: number; taxAmount: number; totalAmount: number;
  createdDate: string; updatedDate: string; lines: InvoiceLineDocument[];
};

/** First and last instant a seeded `createdDate` / `updatedDate` can take. */
export const SEED_PERIOD = { from: '2025-01-01T00:00:00.000Z', to: '2026-10-31T23:59:59.999Z' } as const;

/** The seed used when none is given. */
const DEFAULT_SEED = 20250101;

const PERIOD_START = Date.parse(SEED_PERIOD.from);
const PERIOD_END = Date.parse(SEED_PERIOD.to);
const DAY_MS = 86_400_000;

// Some names carry quotes, apostrophes, ampersands and non-ASCII text so that SQL parameters,
// JSON and Parquet encoding all get exercised by ordinary seed data.
const SUPPLIERS: readonly (readonly [id: string, name: string])[] = [
  ['SUP-0001', 'Müller & Söhne GmbH'],
  ['SUP-0002', 'Northwind Traders'],
  ['SUP-0003', `O'Reilly "Premium" Supplies Ltd.`],
  ['SUP-0004', 'Adventure Works'],
  ['SUP-0005', 'Ærøskøbing Træ A/S'],
  ['SUP-0006', 'Litware, Inc.'],
  ['SUP-0007', '株式会社サンプル商事'],
  ['SUP-0008', 'Société Générale d’Entretien SA'],
  ['SUP-0009', 'Tailspin Toys'],
  ['SUP-0010', 'Wide World Importers'],
];
const TITLES: readonly string[] = [
  'Facility Management Agreement', 'Software Licence Agreement', 'Logistics Framework Contract',
  `O'Brien Consulting "Gold" Retainer`, 'Rahmenvertrag Straßenreinigung – Zürich',
  'Office Supplies Master Agreement', 'IT Hardware Lease', 'Cloud Hosting Services',
  'Catering & Events Contract', 'Maintenance Service Level Agreement',
];
const OWNERS: readonly string[] = ['anna.schmidt', 'li.wei', 'sean.obrien', 'maria.garcia', 'jonas.berg'];
const CURRENCIES: readonly string[] = ['EUR', 'USD', 'GBP', 'CHF'];
const TAX_PERCENT: readonly number[] = [0, 7, 19, 20];
const PAYMENT_TERMS_DAYS: readonly number[] = [14, 30, 45, 60];
/** description, commodity code (UNSPSC), unit of measure, whether the quantity may be fractional. */
const CATALOG: readonly (readonly [string, string, string, boolean])[] = [
  ['Consulting hours', '80101500', 'HUR', true],
  ['Laptop 14"', '43211503', 'EA', false],
  ['Printer paper A4', '14111507', 'PK', false],
  ['Diesel fuel', '15101505', 'LTR', true],
  ['Cleaning service – monthly', '76111501', 'MON', false],
  ['Software subscription', '43232300', 'EA', false],
  ['Steel bolts M8', '31161500', 'KGM', true],
  ['Café supplies', '50201700', 'PK', false],
];

interface Random {
  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
}

/** mulberry32: tiny, fast and good enough for test data; Math.random cannot be seeded. */
function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => {
    const item = items[int(0, items.length - 1)];
    if (item === undefined) throw new TypeError('cannot pick from an empty list');
    return item;
  };
  return { int, pick, chance: (probability) => next() < probability };
}

/** Tenant names become id prefixes, so they are restricted to what reads well in an id. */
function tenantCode(tenant: string): string {
  if (!/^[a-z][a-z0-9]*$/.test(tenant)) {
    throw new TypeError(`tenant "${tenant}" must be lower-case letters and digits, e.g. "contoso"`);
  }
  return tenant.toUpperCase();
}

/** Mixes the tenant into the seed so that tenants get different data from one seed. */
function tenantSeed(tenant: string, seed: number, stream: number): number {
  let hash = (seed ^ Math.imul(stream, 0x9e3779b9)) >>> 0;
  for (const char of tenant) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return hash;
}

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const cents = (amount: number): number => amount / 100;
const serial = (n: number): string => String(n).padStart(6, '0');

/** The first of each status in order, then random ones: every status is present once count ≥ 6. */
function status(random: Random, statuses: readonly string[], index: number): string {
  return statuses[index] ?? random.pick(statuses);
}

/** created uniform over the period; updated equal to it for a fifth, else up to 120 days later. */
function createdAndUpdated(random: Random): { created: number; updated: number } {
  const created = random.int(PERIOD_START, PERIOD_END);
  const updated = random.chance(0.2) ? created : Math.min(PERIOD_END, created + random.int(1, 120 * DAY_MS));
  return { created, updated };
}

/** `CW` and 4–10 digits, unique within the tenant so a workspace filter names one contract. */
function workspaceId(random: Random, used: Set<string>): string {
  for (;;) {
    const digits = random.int(4, 10);
    const value = `CW${random.int(1, 9)}${Array.from({ length: digits - 1 }, () => random.int(0, 9)).join('')}`;
    if (!used.has(value)) {
      used.add(value);
      return value;
    }
  }
}

/** `count` contracts of `tenant`, ids `CT-<TENANT>-000001` upwards (unique across tenants). */
export function generateContracts(tenant: string, count: number, seed = DEFAULT_SEED): ContractDocument[] {
  const code = tenantCode(tenant);
  const random = createRandom(tenantSeed(tenant, seed, 1));
  const workspaces = new Set<string>();
  return Array.from({ length: count }, (_, index) => {
    const contractId = `CT-${code}-${serial(index + 1)}`;
    const [supplierId, supplierName] = random.pick(SUPPLIERS);
    const { created, updated } = createdAndUpdated(random);
    const effective = created + random.int(0, 60) * DAY_MS;
    return {
      id: contractId,
      tenantId: tenant,
      contractId,
      contractWorkspaceID: workspaceId(random, workspaces),
      title: random.pick(TITLES),
      status: status(random, statusesOf(CONTRACTS), index),
      supplierId,
      supplierName,
      ownerEmail: `${random.pick(OWNERS)}@${tenant}.example`,
      currency: random.pick(CURRENCIES),
      contractAmount: cents(random.int(100_000, 200_000_000)),
      effectiveDate: day(effective),
      expirationDate: random.chance(0.15) ? null : day(effective + random.int(365, 3 * 365) * DAY_MS),
      createdDate: new Date(created).toISOString(),
      updatedDate: new Date(updated).toISOString(),
    };
  });
}

/** 1–8 lines; quantities are whole or in hundredths, prices in cents, amounts rounded per line. */
function invoiceLines(random: Random, taxPercent: number): { lines: InvoiceLineDocument[]; net: number; tax: number } {
  let net = 0;
  let tax = 0;
  const lines = Array.from({ length: random.int(1, 8) }, (_, index) => {
    const [description, commodityCode, unitOfMeasure, fractional] = random.pick(CATALOG);
    const hundredths = fractional ? random.int(25, 10_000) : random.int(1, 100) * 100;
    const unitPriceCents = random.int(50, 250_000);
    const lineNet = Math.round((hundredths * unitPriceCents) / 100);
    const lineTax = Math.round((lineNet * taxPercent) / 100);
    net += lineNet;
    tax += lineTax;
    return {
      lineNumber: index + 1, description, commodityCode, quantity: hundredths / 100, unitOfMeasure,
      unitPrice: cents(unitPriceCents), netAmount: cents(lineNet), taxAmount: cents(lineTax),
    };
  });
  return { lines, net, tax };
}

/**
 * `count` invoices of `tenant`, ids `INV-<TENANT>-000001` upwards. About a fifth have no contract;
 * the others belong to one of `contracts` of the same tenant (contracts of other tenants are ignored)
 * and share its supplier and currency.
 */
export function generateInvoices(
  tenant: string, count: number, contracts: readonly ContractDocument[], seed = DEFAULT_SEED,
): InvoiceDocument[] {
  const code = tenantCode(tenant);
  const random = createRandom(tenantSeed(tenant, seed, 2));
  const own = contracts.filter((contract) => contract.tenantId === tenant);
  return Array.from({ length: count }, (_, index) => {
    const invoiceId = `INV-${code}-${serial(index + 1)}`;
    const contract = own.length > 0 && !random.chance(0.2) ? random.pick(own) : undefined;
    const [supplierId, supplierName] = contract
      ? [contract.supplierId, contract.supplierName]
      : random.pick(SUPPLIERS);
    const { created, updated } = createdAndUpdated(random);
    const invoiceDay = Math.max(PERIOD_START, created - random.int(0, 14) * DAY_MS);
    const { lines, net, tax } = invoiceLines(random, random.pick(TAX_PERCENT));
    return {
      id: invoiceId,
      tenantId: tenant,
      invoiceId,
      // 7919 is prime and coprime with 10^6: distinct within a tenant, but not in id order.
      invoiceNumber: `${day(invoiceDay).slice(0, 4)}-${serial(((index + 1) * 7919) % 1_000_000)}`,
      contractId: contract?.contractId ?? null,
      contractWorkspaceID: contract?.contractWorkspaceID ?? null,
      contractStatus: contract?.status ?? null,
      purchaseOrderId: `PO-${random.int(100_000, 999_999)}`,
      supplierId,
      supplierName,
      status: status(random, statusesOf(INVOICES), index),
      invoiceDate: day(invoiceDay),
      dueDate: day(invoiceDay + random.pick(PAYMENT_TERMS_DAYS) * DAY_MS),
      currency: contract?.currency ?? random.pick(CURRENCIES),
      netAmount: cents(net),
      taxAmount: cents(tax),
      totalAmount: cents(net + tax),
      createdDate: new Date(created).toISOString(),
      updatedDate: new Date(updated).toISOString(),
      lines,
    };
  });
}

/**
 * One tenant's seed documents of every resource, by resource name. Invoices refer to the tenant's
 * contracts, so both come from one call.
 */
export function generateTenantDocuments(tenant: string, count: number, seed = DEFAULT_SEED): Readonly<Record<string, readonly (ContractDocument | InvoiceDocument)[]>> {
  const contracts = generateContracts(tenant, count, seed);
  return { [CONTRACTS.name]: contracts, [INVOICES.name]: generateInvoices(tenant, count, contracts, seed) };
}
