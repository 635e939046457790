/**
 * Which windows of a new job need an export, decided at its kick-off without reading a record
 * (docs/decisions.md, "How many aggregates a kick-off asks"). A window
 * sent without an ETag does. A window sent with one is checked:
 * - on its own, by one aggregate, as the summary operation checks it: the newest window always
 *   (the open month, where a night's writes land), and every window whose ETag the service
 *   cannot vouch for;
 * - or together with its neighbours, by one aggregate over their days, where the service recorded
 *   the version each ETag was worked out from (an earlier job's outcome) and those versions were
 *   settled together (../results/check-together.ts). One that differs sends them back to one
 *   aggregate each.
 */
import { faultName } from '../errors/api-error.js';
import type { IfNoneMatch } from '../results/if-none-match.js';
import type { PreparedResource } from '../results/prepared-resource.js';
import type { ResultDeps } from '../results/result-deps.js';
import { readResult } from '../results/result-reader.js';
import { etagAt } from '../results/result-validator.js';
import { checkTogether, settledTogether } from '../results/check-together.js';
import type { ExportJob, ExportJobs, ExportWindow, WindowOutcome } from '../store/export-jobs.js';
import type { StoreMeter, TakenVersion } from '../store/record-store.js';
import { windowView, type WindowView } from './window-view.js';

type Window = ExportWindow;

export interface CheckInput {
  readonly job: ExportJob;
  readonly resource: PreparedResource;
  readonly deps: ResultDeps;
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
  readonly query: WindowView['query'];
  readonly version: TakenVersion;
}

/**
 * Sorts the job's windows into those that need an export and the others (unchanged, no record
 * read). Windows without an ETag need one; the checks run concurrently, the newest first, and
 * every one settles before a failure is thrown.
 */
export async function sortWindows({ job, resource, deps, jobs, requestId, meter }: CheckInput): Promise<SortedWindows> {
  const asked = job.windows.filter((window) => job.ifNoneMatch[window.label] !== undefined);
  const changed = new Set(job.windows.filter((window) => !asked.includes(window)));
  const views = new Map(asked.map((window) => [window.label, windowView(job, window, resource, deps, { requestId, meter })]));

  const alone = async (window: Window): Promise<WindowOutcome[]> => {
    const checked = await readResult(views.get(window.label)!.input).check();
    if (checked.kind === 'unchanged') return [unchanged(window, checked.validators.etag, { ...checked.validators.version, takenAt: checked.validators.takenAt })];
    changed.add(window);
    return [];
  };
  const together = async (run: readonly Vouched[]): Promise<WindowOutcome[]> => {
    const { unchanged: same, takenAt } = await checkTogether(views.get(run[0]!.window.label)!.input.scope, run, deps, meter);
    if (same) return run.map(({ window, etag, version }) => unchanged(window, etag, { records: version.records, latestWrite: version.latestWrite, takenAt }));
    return settledAll([...run].reverse().map(({ window }) => alone(window)));
  };

  // The newest month's check goes first, before the recorded versions are looked up.
  const newest = asked.at(-1);
  const first = newest ? [alone(newest)] : [];
  // Its failure is heard by settledAll below, not as an unhandled rejection meanwhile.
  for (const check of first) check.catch(() => {});
  const runs = await settledRuns(job, asked, views, jobs, (reason) => deps.log.warning(requestId, reason));
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
async function settledRuns(job: ExportJob, asked: readonly Window[], views: ReadonlyMap<string, WindowView>, jobs: CheckInput['jobs'], warn: (reason: string) => void): Promise<Vouched[][]> {
  const candidates = asked.slice(0, -1).filter((window) => !views.get(window.label)!.query.matchesNothing);
  const tagsOf = (window: Window) => listed(views.get(window.label)!.precondition);
  const etags = [...new Set(candidates.flatMap(tagsOf))];
  if (etags.length === 0) return [];
  // Only a shortcut: a lookup that fails leaves every window to its own check.
  const versions = await jobs.versionsOf(job.tenant, etags).catch((error: unknown) => {
    warn(`the versions of the sent ETags could not be read (${faultName(error)}); each window is checked on its own`);
    return new Map<string, TakenVersion>();
  });
  const vouched = new Map<string, Vouched>();
  for (const window of candidates) {
    const { input, query } = views.get(window.label)!;
    for (const etag of tagsOf(window)) {
      const version = versions.get(etag);
      // The ETag this window's query gets from that version now: only a match vouches for it.
      if (version && etagAt(input, version, version.takenAt, '') === etag) {
        vouched.set(window.label, { window, etag, query, version });
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
    if (run.length > 1 && settledTogether(run)) runs.push(run);
    run = [];
  }
  return runs;
}

/** The weak ETags an If-None-Match lists, as the service writes them (`*` lists none). */
function listed(precondition: IfNoneMatch | undefined): string[] {
  return precondition === undefined || precondition.any ? [] : precondition.tags.map((tag) => `W/"${tag}"`);
}

function unchanged(window: Window, etag: string, checked: TakenVersion): WindowOutcome {
  return { label: window.label, status: 'unchanged', etag, records: 0, files: [], checked };
}
