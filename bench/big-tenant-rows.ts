import type { BigTenantFigures } from './big-tenant.js';
import type { ColdStartFigures } from './cold-start.js';
import { count, duration, size, times, type Standing, type TableRow } from './table.js';

const judge = (met: boolean): Standing => (met ? 'met' : 'not met');
const blank = { throughput: '', p99: '', memory: '—' } as const;

/** Targets of the big-tenant issue. */
const DOCUMENTS_PER_RECORD = 1.1;
const LAST_OVER_FIRST = 1.5;
const COMPRESSED_SHARE = 0.15;
const COMPRESSED_LATENCY = 1.5;

/** Paging rows (documents read ÷ records returned; last page ÷ first page) and compression rows. */
export function bigTenantRows(figures: BigTenantFigures): TableRow[] {
  const rows: TableRow[] = [];
  for (const walk of figures.walks) {
    const perRecord = walk.documents / walk.records;
    const lastOverFirst = walk.lastPageMs / walk.firstPageMs;
    const measurement = `walk of ${count(figures.tenantRecords)} records at pageSize ${walk.pageSize}, ${walk.cursors ? 'with page cursors' : 'without (count-and-skip only)'}`;
    const partial = !walk.cursors && walk.pages < Math.ceil(walk.records / walk.pageSize);
    rows.push({
      measurement,
      subject: `${walk.pages} pages${partial ? ' (first and last only)' : ''}: ${count(walk.documents)} documents from the store${walk.requestCharge > 0 ? `, ${count(walk.requestCharge)} RU` : ''}`,
      time: `page 1 ${duration(walk.firstPageMs)}, last ${duration(walk.lastPageMs)}`,
      ...blank,
      output: `${times(perRecord)} documents per record returned`,
      ratio: `last ÷ first ${times(lastOverFirst)}`,
      target: walk.cursors ? `≤ ${times(DOCUMENTS_PER_RECORD)} per record; last ≤ ${times(LAST_OVER_FIRST)} first` : 'baseline',
      standing: walk.cursors ? judge(perRecord <= DOCUMENTS_PER_RECORD && lastOverFirst <= LAST_OVER_FIRST) : 'info',
      ...(walk.cursors ? { verdict: `walk at pageSize ${walk.pageSize}: ${times(perRecord)} documents per record (target ≤ ${times(DOCUMENTS_PER_RECORD)}), last page ${times(lastOverFirst)} the first (target ≤ ${times(LAST_OVER_FIRST)})` } : {}),
    });
  }
  for (const pageSize of new Set(figures.codings.map((coding) => coding.pageSize))) {
    const of = (name: string) => figures.codings.find((coding) => coding.pageSize === pageSize && coding.coding === name)!;
    const identity = of('identity');
    for (const coding of [of('gzip'), of('br')]) {
      const share = coding.bytes / identity.bytes;
      const slower = coding.p50Ms / identity.p50Ms;
      const targeted = pageSize >= 1000;
      rows.push({
        measurement: `JSON page of ${pageSize}, first page of the tenant, in-process with the real store`,
        subject: `${coding.coding} vs identity (${size(identity.bytes)}, p50 ${duration(identity.p50Ms)})`,
        time: `p50 ${duration(coding.p50Ms)}`,
        ...blank,
        output: `${size(coding.bytes)} (${(share * 100).toFixed(1)}%)`,
        ratio: `latency ${times(slower)}`,
        target: targeted ? `≤ ${COMPRESSED_SHARE * 100}% bytes at ≤ ${times(COMPRESSED_LATENCY)} latency` : 'informational',
        standing: targeted ? judge(share <= COMPRESSED_SHARE && slower <= COMPRESSED_LATENCY) : 'info',
        ...(targeted ? { verdict: `${coding.coding} page of ${pageSize}: ${(share * 100).toFixed(1)}% of the identity bytes at ${times(slower)} its latency (target ≤ 15% at ≤ ${times(COMPRESSED_LATENCY)})` } : {}),
      });
    }
  }
  return rows;
}

/** The cold start of the deploy artifact against the unbundled build (targets ≤ 0.3 s and ≤ 0.3×). */
export function coldStartRows(figures: ColdStartFigures): TableRow[] {
  const ratio = figures.bundledMs / figures.unbundledMs;
  const met = figures.bundledMs <= 300 && ratio <= 0.3;
  return [{
    measurement: `cold import of the function file in a fresh Node process (median of ${figures.runs})`,
    subject: `deploy artifact (npm run package: ${size(figures.bundleBytes)} of JavaScript, ${size(figures.zipBytes)} zipped) vs unbundled dist/ (${duration(figures.unbundledMs)}, RSS ${size(figures.unbundledRssBytes)})`,
    time: duration(figures.bundledMs),
    throughput: '',
    p99: '',
    memory: size(figures.bundledRssBytes),
    output: size(figures.zipBytes),
    ratio: times(ratio),
    target: '≤ 300 ms and ≤ 0.30×',
    standing: judge(met),
    verdict: `cold import of the deploy artifact: ${duration(figures.bundledMs)} (target ≤ 300 ms), ${times(ratio)} the unbundled ${duration(figures.unbundledMs)} (target ≤ 0.30×)`,
  }];
}
