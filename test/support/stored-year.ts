import { storeRecords } from './store-records.js';

/** Sums of stored amounts as the exact decimal string Python's Decimal prints (2 places). */
export function exactSum(values: readonly unknown[]): string {
  const cents = values.reduce<bigint>((total, value) => total + BigInt(Math.round(Number(value ?? 0) * 100)), 0n);
  return `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
}

/**
 * What the store holds for contoso's 2025 (by createdDate), as Python readers of it must count it:
 * contracts, the exact sum of their amounts, invoices and invoice lines.
 */
export async function storedYear(): Promise<{ contracts: number; amount: string; invoices: number; lines: number }> {
  const contracts = (await storeRecords('contracts', 'contoso')).filter((record) => String(record.createdDate).startsWith('2025-'));
  const invoices = (await storeRecords('invoices', 'contoso')).filter((record) => String(record.createdDate).startsWith('2025-'));
  return {
    contracts: contracts.length,
    amount: exactSum(contracts.map((record) => record.contractAmount)),
    invoices: invoices.length,
    lines: invoices.reduce((total, record) => total + (record.lines as unknown[]).length, 0),
  };
}
