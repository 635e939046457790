/**
 * summary-client pull <contracts|invoices> --from YYYY-MM-DD --to YYYY-MM-DD [--by created|updated|invoiceDate]
 *   [--format parquet|jsonl] [--filter name=value ...] [--settle DAYS] --out DIR [--dry-run]
 * Exit codes: 0 every window pulled; 1 some windows failed (named on stderr) or the service could
 * not be reached; 2 a usage, settings, credential or folder error, or a request the service refuses
 * whatever the window.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { DATASETS, isDatasetName, MAX_PAGE_SIZE, type DateBy, type Format } from './datasets.js';
import { ManifestError, doneEntries, openManifest } from './manifest.js';
import { printable } from './printable.js';
import { reporter } from './progress.js';
import { DEFAULT_SETTLE_DAYS, pull, PullStopped } from './pull.js';
import { DEFAULT_RETRY } from './retry.js';
import { pullSource, readSettings, SettingsError, trustCaFile } from './settings.js';
import { summaryApi, TokenError } from './summary-api.js';
import { explainTokenFailure } from './token-failure.js';
import { isSettled, monthWindows, parseDay, windowLabel } from './windows.js';

// The datasets and their dates come from the generated datasets.ts: the usage never restates them.
const DATASET_NAMES = Object.keys(DATASETS).join('|');
const DATE_BY = [...new Set(Object.values(DATASETS).flatMap((dataset) => dataset.dateBy))].join('|');

export const USAGE = `usage: summary-client pull <${DATASET_NAMES}> --from YYYY-MM-DD --to YYYY-MM-DD --out DIR
         [--by ${DATE_BY}] [--format parquet|jsonl] [--filter name=value ...]
         [--settle DAYS] [--page-size N (jsonl)] [--max-retry-wait SECONDS] [--dry-run]
       summary-client --help | --version

Pulls a date range of a dataset into DIR, one file per calendar month: contracts-2025-03.parquet;
invoices into DIR/invoices/ and DIR/invoice_tables/ (the two tables of the export); or .jsonl. The
manifest DIR/_manifest.json makes running the same command again resume and never duplicate.
--from and --to are UTC days, both included; --by picks the date (default created). A window is
settled once --settle days (default ${DEFAULT_SETTLE_DAYS}) have passed after its last day: settled windows are
pulled once, open ones (reaching today or later) again on every run, so a nightly
'--to <today>' ends with every record. --dry-run lists the windows and what a run would do.

Settings (environment): SUMMARY_BASE_URL, SUMMARY_SCOPE, SUMMARY_SUBSCRIPTION_KEY, SUMMARY_API_KEY;
SUMMARY_CLIENT_ID + SUMMARY_CLIENT_SECRET with SUMMARY_TOKEN_URL or SUMMARY_TENANT_ID
(+ SUMMARY_AUTHORITY_HOST, default https://login.microsoftonline.com); without a secret, any
DefaultAzureCredential source (managed identity, Azure CLI, AZURE_* variables). SUMMARY_CA_FILE: a
CA to trust (a local identity provider); SUMMARY_MAX_EXPORT_BYTES: the largest export taken (2 GiB).`;

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
  readonly settleDays: number;
  readonly dryRun: boolean;
}

export function parseCommand(argv: readonly string[]): Parsed | 'help' | 'version' {
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
        settle: { type: 'string', default: String(DEFAULT_SETTLE_DAYS) },
        'dry-run': { type: 'boolean', default: false },
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
  for (const name of ['from', 'to'] as const) {
    const value = values[name];
    if (value === undefined) throw new UsageError(`--${name} YYYY-MM-DD is required`);
    if (parseDay(value) === undefined) throw new UsageError(`--${name} ${value} is not a calendar day YYYY-MM-DD`);
  }
  if (values.from! > values.to!) throw new UsageError(`--from ${values.from} is after --to ${values.to}`);
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
  const maxRetryWait = Number(values['max-retry-wait']);
  if (!/^\d+(\.\d+)?$/.test(values['max-retry-wait']!.trim()) || !Number.isFinite(maxRetryWait)) throw new UsageError('--max-retry-wait must be seconds, 0 or more');
  const settleDays = Number(values.settle);
  if (!/^\d+$/.test(values.settle!.trim()) || settleDays > 366) throw new UsageError('--settle must be whole days from 0 to 366');
  return {
    dataset, from: values.from!, to: values.to!, by: values.by as DateBy, format: values.format, filters,
    out: values.out ?? '', pageSize, maxRetryWaitMs: maxRetryWait * 1000, settleDays, dryRun: values['dry-run']!,
  };
}

export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, now: () => number = Date.now): Promise<number> {
  const fail = (message: string): number => {
    process.stderr.write(`summary-client: ${printable(message)}\n`);
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
      process.stdout.write(dryRun(command, env, now()));
      return 0;
    }
    const settings = readSettings(env);
    if (settings.caFile) trustCaFile(settings.caFile);
    const api = summaryApi(settings);
    const report = reporter(process.stderr);
    const source = { service: settings.baseUrl, client: settings.client };
    try {
      const summary = await pull(api, { ...command, source, now, retry: { ...DEFAULT_RETRY, maxWaitMs: command.maxRetryWaitMs } }, report.observe);
      report.finish(summary, command.out);
      return summary.failed.length === 0 ? 0 : 1;
    } catch (error) {
      if (error instanceof TokenError) return fail(`no access token: ${await explainTokenFailure(settings, error.message)}. Nothing more was pulled (windows pulled before stay in the folder)`);
      throw error;
    }
  } catch (error) {
    if (error instanceof SettingsError || error instanceof ManifestError || error instanceof PullStopped || error instanceof RangeError) return fail(error.message);
    // Anything else is a fault of this client or of the machine (a full disk): one line, no stack.
    return fail(`stopped by an unexpected error: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The windows as the files will be named, with their days and what a run would do with each:
 * `pull`, `open` (pulled now and on every run until it settles) or `done` (in --out's manifest).
 */
function dryRun(command: Parsed, env: NodeJS.ProcessEnv, now: number): string {
  const { dataset, format, by, filters, out, settleDays } = command;
  // Without settings, the folder's own service and client are taken: a dry run only reads.
  const options = { readOnly: true, anySource: !env.SUMMARY_BASE_URL?.trim() };
  const manifest = out && existsSync(out) ? openManifest(out, { ...pullSource(env), dataset, format, by, filters }, settleDays, options) : undefined;
  return monthWindows(command.from, command.to).map((window) => {
    const settled = isSettled(window, now, settleDays);
    const state = !settled ? 'open' : manifest && doneEntries(manifest, out, window.from, window.to) ? 'done' : 'pull';
    return `${windowLabel(window)}\t${window.from}\t${window.to}\t${state}\n`;
  }).join('');
}
