import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startStackChild, type StackMemory as Memory, type StackTarget } from '../dev/stack-child.js';
import { workload, type RequestKind } from './workload.js';

// npm run load: a mixed workload against the local stack (in its own process) over loopback,
// bounded in time. Reports requests served, the status mix, p99 and the stack's RSS after
// warm-up and at the end; checks every answer's status and samples bodies for wrong answers.
const SECONDS = Number(process.env.LOAD_SECONDS ?? 60);
const WARMUP_SECONDS = Number(process.env.LOAD_WARMUP_SECONDS ?? 10);
const CONNECTIONS = 32;
/** The dev clients the workload calls as (workload.ts). */
const CLIENTS = ['contoso-full', 'contoso-basic', 'fabrikam-full', 'contoso-norole'];
const SAMPLE_EVERY = 10;

interface Tally {
  statuses: Map<number, number>;
  perKind: Map<string, { count: number; wrong: number }>;
  wrong: string[];
}

async function main(): Promise<void> {
  // A smaller seed than npm start's: the embedded store's query engine, not the service, bounds throughput.
  const stack = await startStackChild({ clients: CLIENTS, seedRecords: Number(process.env.LOAD_SEED_RECORDS ?? 500) });
  try {
    const { target } = stack;
    const kinds = workload(target);
    await drive(target, kinds, WARMUP_SECONDS, newTally());
    const afterWarmup = await stack.memory();
    const tally = newTally();
    const result = await drive(target, kinds, SECONDS, tally);
    const atEnd = await stack.memory();
    const fiveXX = [...tally.statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
    const report = render(result, tally, { afterWarmup, atEnd, fiveXX });
    console.log(report);
    writeReport(report);
    if (fiveXX > 0 || tally.wrong.length > 0 || result.errors > 0) process.exitCode = 1;
  } finally {
    await stack.stop();
  }
}

function newTally(): Tally {
  return { statuses: new Map(), perKind: new Map(), wrong: [] };
}

function drive(target: StackTarget, kinds: readonly RequestKind[], seconds: number, tally: Tally): Promise<autocannon.Result> {
  return autocannon({
    url: target.baseUrl,
    connections: CONNECTIONS,
    duration: seconds,
    // The embedded store is slow under 32 connections on 2 cores; a slow answer is not a failure.
    timeout: 60,
    requests: kinds.map((kind) => ({
      method: 'POST' as const,
      path: new URL(target.baseUrl).pathname + kind.path,
      headers: kind.headers,
      body: kind.body,
      onResponse: (status: number, body: string) => check(kind, status, body, tally),
    })),
  });
}

function check(kind: RequestKind, status: number, body: string, tally: Tally): void {
  tally.statuses.set(status, (tally.statuses.get(status) ?? 0) + 1);
  const entry = tally.perKind.get(kind.name) ?? { count: 0, wrong: 0 };
  tally.perKind.set(kind.name, entry);
  entry.count++;
  let problem: string | undefined;
  if (status !== kind.expectedStatus) problem = `status ${status}, expected ${kind.expectedStatus}`;
  else if (entry.count % SAMPLE_EVERY === 0) problem = status === 200 ? wrongRecords(kind, body) : wrongProblem(body, status);
  if (problem) {
    entry.wrong++;
    if (tally.wrong.length < 20) tally.wrong.push(`${kind.name}: ${problem}`);
  }
}

function wrongRecords(kind: RequestKind, body: string): string | undefined {
  const { data } = JSON.parse(body) as { data: Record<string, unknown>[] };
  for (const record of data) {
    const id = String(record.contractId ?? record.invoiceId ?? '');
    if (kind.tenant && !id.includes(`-${kind.tenant}-`)) return `record ${id} of another tenant`;
    for (const field of kind.forbiddenFields ?? []) if (field in record) return `field ${field} beyond the roles`;
  }
  return data.length === 0 ? 'no records' : undefined;
}

function wrongProblem(body: string, status: number): string | undefined {
  const problem = JSON.parse(body) as { status?: number; code?: string };
  return problem.status === status && typeof problem.code === 'string' ? undefined : 'not a problem document';
}

function render(result: autocannon.Result, tally: Tally, memory: { afterWarmup: Memory; atEnd: Memory; fiveXX: number }): string {
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
  const statuses = [...tally.statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`).join(', ');
  const kinds = [...tally.perKind].map(([name, { count, wrong }]) => `| ${name} | ${count} | ${wrong} |`).join('\n');
  return [
    `Load run ${new Date().toISOString().slice(0, 10)}: ${CONNECTIONS} connections, ${SECONDS} s after ${WARMUP_SECONDS} s warm-up, node ${process.version}, ${cpus().length} cores, loopback.`,
    '',
    '| figure | value |',
    '|---|---|',
    `| requests served | ${result.requests.total} (${result.requests.average.toFixed(0)}/s) |`,
    `| status mix | ${statuses} |`,
    `| 5xx | ${memory.fiveXX} |`,
    `| wrong answers (every status checked, every ${SAMPLE_EVERY}th body) | ${tally.wrong.length} |`,
    `| transport errors / timeouts | ${result.errors} / ${result.timeouts} |`,
    `| latency p50 / p99 | ${result.latency.p50} ms / ${result.latency.p99} ms |`,
    `| stack RSS after warm-up → end (after GC) | ${mb(memory.afterWarmup.rss)} → ${mb(memory.atEnd.rss)} (${growth(memory.afterWarmup.rss, memory.atEnd.rss)}) |`,
    `| stack heap used after warm-up → end (after GC) | ${mb(memory.afterWarmup.heapUsed)} → ${mb(memory.atEnd.heapUsed)} (${growth(memory.afterWarmup.heapUsed, memory.atEnd.heapUsed)}) |`,
    '',
    '| request kind | answers | wrong |',
    '|---|---|---|',
    kinds,
    ...(tally.wrong.length > 0 ? ['', 'First wrong answers:', ...tally.wrong.map((line) => `- ${line}`)] : []),
  ].join('\n');
}

function growth(before: number, after: number): string {
  return `${(((after - before) / before) * 100).toFixed(1)}%`;
}

/** Replaces the generated part of docs/reliability.md. */
function writeReport(report: string): void {
  const path = fileURLToPath(new URL('../../docs/reliability.md', import.meta.url));
  const doc = readFileSync(path, 'utf8');
  const [start, end] = ['<!-- load:start -->', '<!-- load:end -->'];
  const before = doc.slice(0, doc.indexOf(start) + start.length);
  const after = doc.slice(doc.indexOf(end));
  writeFileSync(path, `${before}\n${report}\n${after}`);
}

await main();
