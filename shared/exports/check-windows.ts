/**
 * Which windows of a new job need an export, decided at its kick-off without reading a record
 * (docs/decisions.md, "How many aggregates a kick-off asks"). A window
 * sent without an ETag does. A window sent with one is checked:
 * - on its own, by one aggregate, as the summary operation checks it: the newest window always
 *   (the open month, where a night's writes land), and every window whose ETag the service
 *   cannot vouch for;
 * - or together with its neighbours, by one aggregate over their days, where the service recorded
 *   the version each ETag was worked out from (an earlier job's outcome) and every one of those
 *   versions was taken after all of their latest writes (by QUIET_SECONDS). Then any write since
 *   lifts the aggregate's latest write above theirs, and a delete alone lowers its count: an
 *   aggregate equal to their versions added up means each window is as its ETag says. One that
 *   differs sends them back to one aggregate each.
 */
import type { IfNoneMatch } from '../http/if-none-match.js';
import type { SummaryEndpoint } from '../http/summary-endpoint.js';
import type { SummaryQuery } from '../model/summary-query.js';
import { QUIET_SECONDS, resultEtag } from '../output/result-etag.js';
import type { ResultVersion, StoreMeter } from '../store/record-store.js';
import type { CheckedVersion, ExportJob, ExportJobs, WindowOutcome } from './export-job.js';
import { windowReader } from './run-window.js';

type Window = ExportJob['windows'][number];

export interface CheckInput {
  readonly job: ExportJob;
  readonly endpoint: SummaryEndpoint;
  readonly jobs: Pick<ExportJobs, 'versionsOf'>;
  readonly requestId: string;
  readonly meter: StoreMeter;
}

/** The windows of a new job, sorted: those that need an export, and the outcomes of the others. */
export interface SortedWindows {
  /** Newest first (they change most): the order they go on the queue in. */
  readonly toExport: readonly Window[];
  readonly unchanged: readonly WindowOutcome[];
}

/** A window whose ETag the service can vouch for: the version it was worked out from. */
interface Vouched {
  readonly window: Window;
  readonly etag: string;
  readonly version: CheckedVersion;
}

/**
 * Sorts the job's windows into those that need an export and the others (unchanged, no record
 * read). Windows without an ETag need one; the checks run concurrently, the newest first, and
 * every one settles before a failure is thrown.
 */
export async function sortWindows({ job, endpoint, jobs, requestId, meter }: CheckInput): Promise<SortedWindows> {
  const asked = job.windows.filter((window) => job.ifNoneMatch[window.label] !== undefined);
  const changed = new Set(job.windows.filter((window) => !asked.includes(window)));
  const readers = new Map(asked.map((window) => [window.label, windowReader(job, window, endpoint, requestId, meter)]));
  const summary = endpoint.deps;

  const alone = async (window: Window): Promise<WindowOutcome[]> => {
    const validated = await readers.get(window.label)!.reader.check();
    if (validated.unchanged) return [unchanged(window, validated.etag, { ...validated.version, takenAt: validated.takenAt })];
    changed.add(window);
    return [];
  };
  const together = async (run: readonly Vouched[]): Promise<WindowOutcome[]> => {
    const queries = run.map(({ window }) => readers.get(window.label)!.query);
    const takenAt = summary.clock();
    const now = await summary.store.version(readers.get(run[0]!.window.label)!.scope, joined(queries[0]!, queries.at(-1)!), meter);
    if (sameVersion(now, addedUp(run))) return run.map(({ window, etag, version }) => unchanged(window, etag, { records: version.records, latestWrite: version.latestWrite, takenAt }));
    return settledAll([...run].reverse().map(({ window }) => alone(window)));
  };

  // The newest month's check goes first, before the recorded versions are looked up.
  const newest = asked.at(-1);
  const first = newest ? [alone(newest)] : [];
  // Its failure is heard by settledAll below, not as an unhandled rejection meanwhile.
  for (const check of first) check.catch(() => {});
  const runs = await settledRuns(job, asked, readers, jobs, (reason) => summary.log.warning(requestId, reason));
  const grouped = new Set(runs.flat().map(({ window }) => window.label));
  const outcomes = await settledAll([
    ...first,
    ...asked.slice(0, -1).filter((window) => !grouped.has(window.label)).reverse().map(alone),
    ...runs.reverse().map(together),
  ]);
  return { toExport: job.windows.filter((window) => changed.has(window)).reverse(), unchanged: outcomes };
}

/** The outcomes of every check, once all have settled: a failure is thrown only then. */
async function settledAll(checks: readonly Promise<WindowOutcome[]>[]): Promise<WindowOutcome[]> {
  const settled = await Promise.allSettled(checks);
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.flatMap((result) => (result.status === 'fulfilled' ? result.value : []));
}

/**
 * The runs of neighbouring windows that can be checked together: each window's ETag vouched for
 * by a recorded version, the newest asked window left out, and every version of a run taken after
 * all of the run's latest writes. Runs of one window are left out (one aggregate either way).
 */
async function settledRuns(job: ExportJob, asked: readonly Window[], readers: ReadonlyMap<string, ReturnType<typeof windowReader>>, jobs: CheckInput['jobs'], warn: (reason: string) => void): Promise<Vouched[][]> {
  const candidates = asked.slice(0, -1).filter((window) => !readers.get(window.label)!.query.matchesNothing);
  const tagsOf = (window: Window) => listed(readers.get(window.label)!.precondition);
  const etags = [...new Set(candidates.flatMap(tagsOf))];
  if (etags.length === 0) return [];
  // Only a shortcut: a lookup that fails leaves every window to its own check.
  const versions = await jobs.versionsOf(job.tenant, etags).catch((error: unknown) => {
    warn(`the versions of the sent ETags could not be read (${error instanceof Error ? error.name : 'unknown'}); each window is checked on its own`);
    return new Map<string, CheckedVersion>();
  });
  const vouched = new Map<string, Vouched>();
  for (const window of candidates) {
    const { scope, query } = readers.get(window.label)!;
    for (const etag of tagsOf(window)) {
      const version = versions.get(etag);
      // The ETag this window's query gets from that version now: only a match vouches for it.
      if (version && resultEtag({ scope, query, format: 'parquet', version, now: new Date(version.takenAt), requestId: '', schema: job.schema }) === etag) {
        vouched.set(window.label, { window, etag, version });
        break;
      }
    }
  }
  const runs: Vouched[][] = [];
  let run: Vouched[] = [];
  for (const window of [...job.windows, undefined]) {
    const next = window && vouched.get(window.label);
    if (next) {
      run.push(next);
      continue;
    }
    if (run.length > 1 && settled(run)) runs.push(run);
    run = [];
  }
  return runs;
}

/** Every version of the run was taken when all of the run's writes were older than QUIET_SECONDS. */
function settled(run: readonly Vouched[]): boolean {
  const latestWrite = Math.max(...run.map(({ version }) => version.latestWrite));
  return run.every(({ version }) => latestWrite < Math.floor(version.takenAt / 1000) - QUIET_SECONDS);
}

/** The weak ETags an If-None-Match lists, as the service writes them (`*` lists none). */
function listed(precondition: IfNoneMatch | undefined): string[] {
  return precondition === undefined || precondition.any ? [] : precondition.tags.map((tag) => `W/"${tag}"`);
}

/**
 * The query of neighbouring windows together: every filter the same, the day range from the first
 * window's first day to the last one's last. Neighbouring day ranges meet with no text between
 * them (build-sql.ts), so it matches exactly the records the windows' own queries match.
 */
function joined(first: SummaryQuery, last: SummaryQuery): SummaryQuery {
  return {
    ...first,
    filters: first.filters.map((filter, index) => {
      const other = last.filters[index];
      return filter.kind === 'dayRange' && other?.kind === 'dayRange' ? { ...filter, to: other.to } : filter;
    }),
  };
}

function addedUp(run: readonly Vouched[]): ResultVersion {
  return {
    records: run.reduce((total, { version }) => total + version.records, 0),
    latestWrite: Math.max(...run.map(({ version }) => version.latestWrite)),
  };
}

function sameVersion(a: ResultVersion, b: ResultVersion): boolean {
  return a.records === b.records && a.latestWrite === b.latestWrite;
}

function unchanged(window: Window, etag: string, checked: CheckedVersion): WindowOutcome {
  return { label: window.label, status: 'unchanged', etag, records: 0, files: [], checked };
}
