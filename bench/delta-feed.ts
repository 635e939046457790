import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pull, readSettings, summaryApi, trustCaFile, type PullOptions } from '../client/src/index.js';
import { copyRunFolder } from '../client/src/generations.js';
import { clientSettings } from '../dev/client-settings.js';
import { upsertAll } from '../dev/seed-store.js';
import { requestTokens } from '../dev/request-tokens.js';
import { DELTA_TOKEN_HEADER } from '../shared/model/delta-operations.js';
import { QUIET_SECONDS } from '../shared/output/result-etag.js';
import { BENCH_CLIENT } from './full-view.js';
import { serveWorker } from './run-worker.js';
import { contractsToThisMonth, startTenantService } from './tenant-service.js';
import { DATABASE_ID } from '../shared/model/resources.js';

/** What the delta measurement runs. */
export interface DeltaInput {
  /** Contracts of the tenant, spread over two years. */
  readonly records: number;
  /** Share of them changed between two runs, spread over every month. */
  readonly changedShare: number;
}

/** One way of bringing a copy up to date, as the service's log lines count it. */
export interface CatchUp {
  readonly ms: number;
  /** Record documents and id-only reads the store handed over (aggregates are not documents). */
  readonly documents: number;
  /** Requests to the service. */
  readonly requests: number;
  /** Rows answered: changed records and removals (a delta), or records of the months pulled (the mirror). */
  readonly rows: number;
}

export interface DeltaFigures {
  readonly records: number;
  /** Records changed: updated (half leaving updatedDate alone), deleted, created today. */
  readonly changed: { readonly updated: number; readonly deleted: number; readonly created: number; readonly months: number };
  /** A full month-by-month pull into an empty folder (the baseline): the median of three. */
  readonly full: CatchUp;
  /** The first delta, without a token: the whole view as Parquet. */
  readonly first: CatchUp;
  /** After the spread changes: the delta as Parquet, the same as JSON pages, and today's month-by-month mirror. */
  readonly spread: { readonly parquet: CatchUp; readonly json: CatchUp; readonly mirror: CatchUp };
  /** A delta when nothing changed since its token. */
  readonly nothing: CatchUp;
  /** summary-client pull kept by the delta (Parquet, from its token): the spread night, and a night with nothing changed. */
  readonly kept: { readonly spread: CatchUp; readonly nothing: CatchUp; readonly moved: CatchUp };
  /** A delta of a busy tenant: a record a second written to a random month during it. */
  readonly busy: CatchUp & { readonly writes: number };
}

const DAY_MS = 86_400_000;
const TENANT = 'deltas';

/**
 * A tenant of `records` contracts over two years on the embedded Cosmos server, served in this
 * process by the production pipeline with its delta operations (tokens in Azurite); the changes
 * real tenants make, spread over every month (old contracts change status, amendments land on
 * records of every month, a few are deleted, a few created today); then the delta since the last
 * token against today's month-by-month mirror and against a full pull, measured in the same run.
 */
async function measure(input: DeltaInput): Promise<DeltaFigures> {
  const tenant = await startTenantService(TENANT);
  const { stack, store, service, lines } = tenant;
  const folders = mkdtempSync(join(tmpdir(), 'bench-delta-'));
  try {
    const container = store.database(DATABASE_ID).container('contracts');
    const write = (documents: readonly Record<string, unknown>[]) => upsertAll(container, documents as readonly { tenantId: string; id: string }[]);
    const now = Date.now();
    const thisMonth = new Date(now).toISOString().slice(0, 7);
    const contracts = contractsToThisMonth(TENANT, input.records, now);
    await write(contracts);
    const firstMonth = new Date(now - 760 * DAY_MS).toISOString().slice(0, 7);
    const quiet = () => new Promise((resolve) => setTimeout(resolve, (QUIET_SECONDS + 1) * 1000));

    const settings = readSettings(clientSettings({ baseUrl: service.baseUrl, authUrl: stack.authUrl, identities: stack.identities, caFile: stack.caFile }, BENCH_CLIENT));
    if (settings.caFile) trustCaFile(settings.caFile);
    const api = summaryApi(settings);
    const logged = async <T>(work: () => Promise<T>): Promise<{ result: T; ms: number; documents: number; requests: number }> => {
      const before = lines.length;
      const started = performance.now();
      const result = await work();
      const ms = performance.now() - started;
      const mine = lines.slice(before);
      return { result, ms, documents: mine.reduce((total, line) => total + (line.storeDocuments ?? 0), 0), requests: mine.length };
    };
    const lastDay = `${thisMonth}-${new Date(Date.UTC(Number(thisMonth.slice(0, 4)), Number(thisMonth.slice(5)), 0)).getUTCDate()}`;
    const mirrorRun = async (out: string): Promise<CatchUp> => {
      const options: PullOptions = { dataset: 'contracts', from: `${firstMonth}-01`, to: lastDay, by: 'created', format: 'parquet', filters: {}, out, source: { service: settings.baseUrl, client: settings.client }, via: 'windows' };
      const run = await logged(() => pull(api, options));
      if (run.result.failed.length > 0) throw new Error(`the pull failed: ${JSON.stringify(run.result.failed)}`);
      return { ms: run.ms, documents: run.documents, requests: run.requests, rows: run.result.outcomes.reduce((total, outcome) => total + (outcome.status === 'pulled' || outcome.status === 'moving' ? outcome.rows : 0), 0) };
    };
    const token = (await requestTokens(stack.authUrl, stack.identities, BENCH_CLIENT)).access_token;
    const headers = { authorization: `Bearer ${token}`, 'ocp-apim-subscription-key': stack.identities.subscriptionKeys[0]!, 'x-api-key': stack.identities.apiKeys[0]!, 'content-type': 'application/json' };
    const body = { createdFrom: `${firstMonth}-01` };
    /** One delta as Parquet: its token and figures. */
    const parquetDelta = async (deltaToken?: string): Promise<CatchUp & { token: string }> => {
      const run = await logged(async () => {
        const response = await fetch(`${service.baseUrl}/v1/contracts/delta`, { method: 'POST', headers: { ...headers, accept: 'application/vnd.apache.parquet' }, body: JSON.stringify({ ...body, ...(deltaToken ? { deltaToken } : {}) }) });
        const bytes = await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`delta answered ${response.status}: ${Buffer.from(bytes).toString('utf8').slice(0, 300)}`);
        return response.headers.get(DELTA_TOKEN_HEADER)!;
      });
      const line = lines.at(-1)!;
      return { ms: run.ms, documents: run.documents, requests: run.requests, rows: line.records, token: run.result };
    };
    /** One delta as JSON pages, every page asked as its link says. */
    const jsonDelta = async (deltaToken: string): Promise<CatchUp> => {
      const run = await logged(async () => {
        let rows = 0;
        let request: Record<string, unknown> = { ...body, deltaToken };
        for (;;) {
          const response = await fetch(`${service.baseUrl}/v1/contracts/delta`, { method: 'POST', headers: { ...headers, accept: 'application/json' }, body: JSON.stringify(request) });
          const page = await response.json() as { data: unknown[]; delta: { nextPage?: string } };
          if (response.status !== 200) throw new Error(`delta answered ${response.status}: ${JSON.stringify(page).slice(0, 300)}`);
          rows += page.data.length;
          if (!page.delta.nextPage) return rows;
          request = { ...body, deltaPage: page.delta.nextPage };
        }
      });
      return { ms: run.ms, documents: run.documents, requests: run.requests, rows: run.result };
    };

    /** summary-client pull kept by the delta: its first run takes a token and pulls window by window, the later ones merge. */
    const keptRun = async (out = join(folders, 'kept'), to = lastDay): Promise<CatchUp> => {
      const options: PullOptions = { dataset: 'contracts', from: `${firstMonth}-01`, to, by: 'created', format: 'parquet', filters: {}, out, source: { service: settings.baseUrl, client: settings.client }, via: 'delta' };
      const run = await logged(() => pull(api, options));
      if (run.result.failed.length > 0 || run.result.stopped) throw new Error(`the pull kept by the delta failed: ${JSON.stringify(run.result.failed)} ${run.result.stopped ?? ''}`);
      return { ms: run.ms, documents: run.documents, requests: run.requests, rows: run.result.outcomes.reduce((total, outcome) => total + (outcome.changed ?? 0) + (outcome.removed ?? 0), 0) };
    };

    await quiet();
    const folder = join(folders, 'mirror');
    await mirrorRun(folder);
    const start = await parquetDelta();
    await keptRun();

    // The spread night: amendments to records of every month (half leaving updatedDate alone), a
    // few old contracts deleted, a few created today, as real tenants change.
    const changed = Math.round(input.records * input.changedShare);
    const deleted = Math.max(1, Math.round(changed * 0.02));
    const created = Math.round(changed * 0.1);
    const updated = changed - deleted - created;
    const step = Math.floor(contracts.length / (updated + deleted));
    const picked = Array.from({ length: updated + deleted }, (_, index) => contracts[index * step]!);
    const today = new Date(now - 60_000).toISOString();
    const template = contracts[0]!;
    await write([
      ...picked.slice(0, updated).map((document, index) => ({ ...document, title: `${document.title} (amended)`, ...(index % 2 === 0 ? { updatedDate: today } : {}) })),
      ...Array.from({ length: created }, (_, index) => ({ ...template, id: `CT-NEW-${index}`, contractId: `CT-NEW-${index}`, createdDate: today, updatedDate: today })),
    ]);
    for (const document of picked.slice(updated)) await container.item(document.id, [TENANT, document.id]).delete();
    const months = new Set(picked.map((document) => document.createdDate.slice(0, 7))).size;
    await quiet();
    const mirror = await mirrorRun(folder);
    // Each asked three times with the same token (a kept state never changes, so each answers the
    // same rows): the median, as the baseline is.
    const middle = async <T extends CatchUp>(run: () => Promise<T>): Promise<T> => {
      const runs = [await run(), await run(), await run()];
      return runs.sort((a, b) => a.ms - b.ms)[1]!;
    };
    // The kept folder's night merged into three copies of it, each from the same token.
    const copies = ['kept-1', 'kept-2', 'kept-3'].map((name) => join(folders, name));
    for (const copy of copies) copyRunFolder(join(folders, 'kept'), copy);
    let copy = 0;
    const keptSpread = await middle(() => keptRun(copies[copy++]));
    const parquet = await middle(() => parquetDelta(start.token));
    const json = await middle(() => jsonDelta(start.token));
    await quiet();
    const nothing = await parquetDelta(parquet.token);
    const keptNothing = await keptRun(copies[0]);
    // The nightly `--to` of the month moved on to the next month (its first night): the token goes on to the wider range.
    const nextMonthEnd = new Date(Date.UTC(Number(thisMonth.slice(0, 4)), Number(thisMonth.slice(5)) + 1, 0)).toISOString().slice(0, 10);
    const keptMoved = await keptRun(copies[1], nextMonthEnd);

    // A busy tenant: a writer changes a record of a random month every second during the delta.
    let writing = true;
    let writes = 0;
    const writer = (async () => {
      while (writing) {
        const target = contracts[(writes * 7919) % contracts.length]!;
        await write([{ ...target, title: `${target.title} (busy ${writes})` }]);
        writes++;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const busy = await parquetDelta(nothing.token);
    writing = false;
    await writer;

    // The baseline: three full pulls into empty folders, in the state the deltas found.
    const fulls: CatchUp[] = [];
    for (const name of ['full-1', 'full-2', 'full-3']) fulls.push(await mirrorRun(join(folders, name)));
    const full = [...fulls].sort((a, b) => a.ms - b.ms)[1]!;
    return { records: input.records, changed: { updated, deleted, created, months }, full, first: start, spread: { parquet, json, mirror }, nothing, kept: { spread: keptSpread, nothing: keptNothing, moved: keptMoved }, busy: { ...busy, writes } };
  } finally {
    await tenant.stop();
    rmSync(folders, { recursive: true, force: true });
  }
}

serveWorker(measure);
