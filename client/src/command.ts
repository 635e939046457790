/**
 * summary-client pull <contracts|invoices> --from YYYY-MM[-DD] --to YYYY-MM[-DD] [--by created|updated|invoiceDate]
 *   [--format parquet|jsonl] [--filter name=value ...] --out DIR [--json] [--until-quiet SECONDS] [--dry-run]
 * Exit codes: 0 complete: every window checked or pulled (still being written or not), and the
 * folder holds every write before its watermark; 1 some windows failed (named on stderr), the
 * service could not be reached, or (--until-quiet) windows were still being written at its bound;
 * 2 a usage, settings, credential or folder error (a folder locked by another run, files in the
 * folder this pull did not write), or a request the service refuses whatever the window.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { DATASETS, isDatasetName, MAX_PAGE_SIZE, type DateBy, type Format } from './datasets.js';
import { SummaryClientError } from './client-error.js';
import { checkableEntries, openManifest } from './manifest.js';
import { printable } from './printable.js';
import { reporter } from './progress.js';
import { pull } from './pull.js';
import { isComplete, toRunAgain, type PullSummary, type Via } from './pull-summary.js';
import { DEFAULT_RETRY } from './retry.js';
import { pullSource, readSettings, trustCaFile } from './settings.js';
import { summaryApi, TokenError } from './summary-api.js';
import { explainTokenFailure } from './token-failure.js';
import { monthEnd, monthWindows, parseDay, windowLabel } from './windows.js';

// The datasets and their dates come from the generated datasets.ts: the usage never restates them.
const DATASET_NAMES = Object.keys(DATASETS).join('|');
const DATE_BY = [...new Set(Object.values(DATASETS).flatMap((dataset) => dataset.dateBy))].join('|');

export const USAGE = `usage: summary-client pull <${DATASET_NAMES}> --from YYYY-MM[-DD] --to YYYY-MM[-DD] --out DIR
         [--by ${DATE_BY}] [--format parquet|jsonl] [--filter name=value ...]
         [--via delta|job|windows] [--page-size N (jsonl)] [--max-retry-wait SECONDS] [--json] [--until-quiet SECONDS] [--dry-run]
       summary-client --help | --version

Pulls a date range of a dataset into DIR, one file per calendar month: contracts-2025-03.parquet;
invoices into DIR/invoices/ and DIR/invoice_tables/ (the two tables of the export); or .jsonl.
--from and --to are UTC days, both included, or months (--from 2025-01 is its first day, --to
2026-11 its last); --by picks the date (default created). Every run checks every window of DIR
by the ETag of its last pull and pulls again exactly those that changed: records created,
changed, back-dated or deleted in any month included. A run that exits 0 leaves DIR holding every
write made before its watermark (printed, and kept in DIR/_manifest.json with each window's ETag
and the time its files reflect). A window still being written while pulled is kept as pulled and
checked again by the next run; --until-quiet SECONDS waits up to SECONDS for every window to be
quiet instead (exit 1 if one is not). A nightly '--from 2025-01 --to <this month>' costs one
check per month when nothing changed. --via job (the default where the service offers export jobs,
for Parquet) asks for the whole range in one export job instead, sending the folder's ETags, and
downloads the changed months' files from storage in parallel, each checked against the job's
manifest. --via delta (the default where the service offers deltas) asks once what changed in
the range since the folder's last run (its token is kept in the manifest) and merges the changes
and removals into the months' files, rewriting only those that changed; a Parquet folder without
a token yet (a first pull), or whose delta is too large for one answer, goes through the job or
window by window and takes its token first; a token the service no longer continues starts
again, and the run says so. --via windows asks window by window (--until-quiet always does). The run names the windows it pulled,
merged, still being written and unchanged; --json prints them as one JSON document on stdout,
with the records each delta changed and removed. --dry-run lists the windows and
what a run would do.

Settings (environment): SUMMARY_BASE_URL, SUMMARY_SCOPE, SUMMARY_SUBSCRIPTION_KEY, SUMMARY_API_KEY;
SUMMARY_CLIENT_ID + SUMMARY_CLIENT_SECRET with SUMMARY_TOKEN_URL or SUMMARY_TENANT_ID
(+ SUMMARY_AUTHORITY_HOST, default https://login.microsoftonline.com); without a secret, any
DefaultAzureCredential source (managed identity, Azure CLI, AZURE_* variables). SUMMARY_CA_FILE: a
CA to trust (a local identity provider); SUMMARY_MAX_EXPORT_BYTES: the largest export taken (2 GiB); SUMMARY_DEADLINE_SECONDS: the most one
call may take, its retries included (900).`;

class UsageError extends Error {}

interface Parsed {
  readonly dataset: keyof typeof DATASETS;
  readonly from: string;
  readonly to: string;
  readonly by: DateBy;
  readonly format: Format;
  readonly filters: Record<string, string>;
  readonly out: string;
  readonly pageSize: number;
  readonly maxRetryWaitMs: number;
  readonly dryRun: boolean;
  /** One JSON document on stdout: the watermark and every window (pull-summary.ts, summaryDocument). */
  readonly json: boolean;
  /** --until-quiet: how long a strict run waits for every window to be quiet, in milliseconds. */
  readonly untilQuietMs?: number;
  /** --settle was given: no longer needed (every window is checked every run); accepted and ignored. */
  readonly settleIgnored: boolean;
  /** --via: absent, a delta (JSON Lines) or a job (Parquet) where the service offers one. */
  readonly via?: Via;
}

function parseCommand(argv: readonly string[]): Parsed | 'help' | 'version' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        from: { type: 'string' },
        to: { type: 'string' },
        by: { type: 'string', default: 'created' },
        format: { type: 'string', default: 'parquet' },
        filter: { type: 'string', multiple: true, default: [] },
        out: { type: 'string' },
        'page-size': { type: 'string' },
        'max-retry-wait': { type: 'string', default: String(DEFAULT_RETRY.maxWaitMs / 1000) },
        settle: { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        'until-quiet': { type: 'string' },
        via: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', short: 'V', default: false },
      },
    });
  } catch (error) {
    // Node's own words name the option; the code (ERR_PARSE_ARGS_...) is for programs.
    throw new UsageError((error as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (values.version) return 'version';
  if (positionals.length === 0) throw new UsageError(`what to do? summary-client pull <${DATASET_NAMES}> …`);
  const [command, dataset, ...extra] = positionals;
  if (command !== 'pull') throw new UsageError(`unknown command ${command}: the command is pull`);
  if (!dataset || !isDatasetName(dataset)) throw new UsageError(`pull what? ${Object.keys(DATASETS).join(' or ')}`);
  if (extra.length > 0) throw new UsageError(`unexpected ${extra.join(' ')}`);
  const days = { from: '', to: '' };
  for (const name of ['from', 'to'] as const) {
    const value = values[name];
    if (value === undefined) throw new UsageError(`--${name} YYYY-MM-DD (or YYYY-MM) is required`);
    days[name] = dayOf(value, name);
  }
  if (days.from > days.to) throw new UsageError(`--from ${values.from} is after --to ${values.to}`);
  const allowedBy: readonly string[] = DATASETS[dataset].dateBy;
  if (!allowedBy.includes(values.by!)) throw new UsageError(`--by ${values.by}: ${dataset} are split by ${allowedBy.join(', ')}`);
  if (values.format !== 'parquet' && values.format !== 'jsonl') throw new UsageError(`--format ${values.format}: parquet or jsonl`);
  if (!values.out && !values['dry-run']) throw new UsageError('--out DIR is required');
  const filters: Record<string, string> = {};
  for (const filter of values.filter ?? []) {
    const equals = filter.indexOf('=');
    if (equals <= 0) throw new UsageError(`--filter ${filter}: give name=value, for example contractWorkspaceID=CW000123`);
    const name = filter.slice(0, equals);
    const known: readonly string[] = DATASETS[dataset].filters;
    if (!known.includes(name)) {
      throw new UsageError(`--filter ${name}: ${dataset} take ${known.join(', ')} (dates through --from/--to/--by; pages and order are the client's)`);
    }
    filters[name] = filter.slice(equals + 1);
  }
  if (values['page-size'] !== undefined && values.format !== 'jsonl') throw new UsageError('--page-size is for --format jsonl: a Parquet export is the whole window');
  const pageSize = Number(values['page-size'] ?? 1000);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) throw new UsageError(`--page-size must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  const untilQuiet = values['until-quiet'];
  if (untilQuiet !== undefined && (!/^\d+$/.test(untilQuiet.trim()) || Number(untilQuiet) < 1)) throw new UsageError('--until-quiet takes the most seconds to wait for every window to be quiet (a whole number, 1 or more; 600 is ten minutes)');
  const via = values.via;
  if (via !== undefined && via !== 'delta' && via !== 'job' && via !== 'windows') throw new UsageError(`--via ${via}: delta (one delta merged into the folder), job (one export job for the range) or windows (a request per window)`);
  if (via === 'delta' && untilQuiet !== undefined) throw new UsageError('--until-quiet goes window by window: leave out --via delta');
  if (via === 'job' && values.format !== 'parquet') throw new UsageError('--via job is for --format parquet: an export job writes Parquet files');
  if (via === 'job' && untilQuiet !== undefined) throw new UsageError('--until-quiet goes window by window (it confirms each window after the service\'s quiet period): leave out --via job');
  const maxRetryWait = Number(values['max-retry-wait']);
  if (!/^\d+(\.\d+)?$/.test(values['max-retry-wait']!.trim()) || !Number.isFinite(maxRetryWait)) throw new UsageError('--max-retry-wait must be seconds, 0 or more');
  return {
    dataset, from: days.from, to: days.to, by: values.by as DateBy, format: values.format, filters,
    out: values.out ?? '', pageSize, maxRetryWaitMs: maxRetryWait * 1000, dryRun: values['dry-run']!, settleIgnored: values.settle !== undefined,
    json: values.json!, ...(untilQuiet === undefined ? {} : { untilQuietMs: Number(untilQuiet) * 1000 }), ...(via === undefined ? {} : { via }),
  };
}

/** A --from or --to as a day: `YYYY-MM-DD`, or a month `YYYY-MM` (its first day for --from, its last for --to). */
function dayOf(value: string, name: 'from' | 'to'): string {
  if (/^\d{4}-\d{2}$/.test(value) && parseDay(`${value}-01`) !== undefined) return name === 'from' ? `${value}-01` : monthEnd(value);
  if (parseDay(value) === undefined) throw new UsageError(`--${name} ${value} is not a calendar day YYYY-MM-DD or a month YYYY-MM`);
  return value;
}

export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, now: () => number = Date.now): Promise<number> {
  // Known before the command is parsed, so that a usage error gets its document too.
  const json = argv.includes('--json');
  const fail = (message: string): number => {
    process.stderr.write(`summary-client: ${printable(message)}\n`);
    // A pipeline that reads --json's document gets one on every run: the error, and no windows.
    if (json) process.stdout.write(`${JSON.stringify({ complete: false, error: message, windows: [] })}\n`);
    return 2;
  };
  let command: ReturnType<typeof parseCommand>;
  try {
    command = parseCommand(argv);
  } catch (error) {
    fail((error as Error).message);
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command === 'version') {
    process.stdout.write(`summary-client ${(createRequire(import.meta.url)('../package.json') as { version: string }).version}\n`);
    return 0;
  }
  try {
    if (command.dryRun) {
      process.stdout.write(dryRun(command, env));
      return 0;
    }
    const settings = readSettings(env);
    if (settings.caFile) trustCaFile(settings.caFile);
    const api = summaryApi(settings);
    const report = reporter(process.stderr);
    const source = { service: settings.baseUrl, client: settings.client };
    if (command.settleIgnored) process.stderr.write('summary-client: --settle is no longer needed and is ignored: every window is checked on every run\n');
    try {
      const summary = await pull(api, { ...command, source, now, retry: { ...DEFAULT_RETRY, maxWaitMs: command.maxRetryWaitMs, deadlineMs: settings.deadlineMs } }, report.observe);
      report.finish(summary, command.out);
      if (command.json) process.stdout.write(`${JSON.stringify(summaryDocument(summary, command))}\n`);
      // Windows to run again come first (1); files of others in the folder alone are for the user
      // to move (2): running again changes nothing.
      if (isComplete(summary)) return 0;
      return toRunAgain(summary) ? 1 : 2;
    } catch (error) {
      if (error instanceof TokenError) return fail(`no access token: ${await explainTokenFailure(settings, error.message)}. Nothing more was pulled (windows pulled before stay in the folder)`);
      throw error;
    }
  } catch (error) {
    // What the user must change, said as it is: the client's own stops, and a bad argument to pull.
    if (error instanceof SummaryClientError) return fail(error.message);
    // Anything else is a fault of this client or of the machine (a full disk): one line, no stack.
    return fail(`stopped by an unexpected error: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * What --json prints: whether the run is complete, the folder's watermark, and every window of the
 * folder with its status, asOf, rows and files, for the next step of a pipeline (which partitions
 * to load again).
 */
function summaryDocument(summary: PullSummary, command: Pick<Parsed, 'dataset' | 'out'>) {
  return {
    complete: isComplete(summary),
    dataset: command.dataset,
    out: command.out,
    watermark: summary.watermark ?? null,
    via: summary.via,
    ...(summary.job ? { job: summary.job } : {}),
    ...(summary.delta ? { delta: summary.delta } : {}),
    ...(summary.rewritten ? { rewritten: summary.rewritten } : {}),
    ...(summary.stopped ? { stopped: summary.stopped } : {}),
    windows: summary.outcomes.map((outcome) => ({
      label: outcome.label, from: outcome.from, to: outcome.to, status: outcome.status, asOf: outcome.asOf ?? null,
      rows: outcome.rows, bytes: outcome.bytes, files: outcome.files.map(({ file, rows, bytes, sha256 }) => ({ file, rows, bytes, sha256 })),
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
      ...(outcome.changed === undefined ? {} : { changed: outcome.changed, removed: outcome.removed ?? 0 }),
    })),
    foreign: summary.foreign ?? [],
  };
}

/**
 * The windows of the range, with their days and what a run would do with each: `check` (in --out's
 * manifest with an ETag and intact files: one conditional request, pulled again only if changed)
 * or `pull`.
 */
function dryRun(command: Parsed, env: NodeJS.ProcessEnv): string {
  const { dataset, format, by, filters, out } = command;
  // Without settings, the folder's own service and client are taken: a dry run only reads.
  const options = { readOnly: true, anySource: !env.SUMMARY_BASE_URL?.trim() };
  const manifest = out && existsSync(out) ? openManifest(out, { ...pullSource(env), dataset, format, by, filters }, options) : undefined;
  // A folder of an older client (no schema) is rewritten whole.
  const rewrite = manifest !== undefined && manifest.schema === undefined && manifest.windows.some((entry) => entry.files.length > 0);
  return monthWindows(command.from, command.to).map((window) => {
    const state = !rewrite && manifest && checkableEntries(manifest, out, window.from, window.to) ? 'check' : 'pull';
    return `${windowLabel(window)}\t${window.from}\t${window.to}\t${state}\n`;
  }).join('');
}
