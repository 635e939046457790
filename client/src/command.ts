/**
 * summary-client pull <contracts|invoices> --from YYYY-MM-DD --to YYYY-MM-DD [--by created|updated|invoiceDate]
 *   [--format parquet|jsonl] [--filter name=value ...] --out DIR [--dry-run]
 * Exit codes: 0 every window pulled; 1 some windows failed (named on stderr); 2 a usage or settings error.
 */
import { parseArgs } from 'node:util';
import { DATASETS, isDatasetName, MAX_PAGE_SIZE, type DateBy, type Format } from './datasets.js';
import { ManifestError } from './manifest.js';
import { reporter } from './progress.js';
import { pull } from './pull.js';
import { DEFAULT_RETRY } from './retry.js';
import { readSettings, SettingsError } from './settings.js';
import { summaryApi, TokenError } from './summary-api.js';
import { monthWindows, parseDay, windowLabel } from './windows.js';

export const USAGE = `usage: summary-client pull <contracts|invoices> --from YYYY-MM-DD --to YYYY-MM-DD --out DIR
         [--by created|updated|invoiceDate] [--format parquet|jsonl] [--filter name=value ...]
         [--page-size N] [--max-retry-wait SECONDS] [--dry-run]

Pulls a date range of a dataset into DIR, one file per calendar month (contracts-2025-03.parquet;
invoices: invoices-2025-03.parquet and invoice_tables-2025-03.parquet; or .jsonl), with a manifest
(DIR/manifest.json) so that running the same command again resumes and never duplicates.
--from and --to are UTC days, both included; --by picks the date (default created).

Settings (environment): SUMMARY_BASE_URL, SUMMARY_SCOPE, SUMMARY_SUBSCRIPTION_KEY, SUMMARY_API_KEY;
SUMMARY_CLIENT_ID + SUMMARY_CLIENT_SECRET with SUMMARY_TOKEN_URL or SUMMARY_TENANT_ID
(+ SUMMARY_AUTHORITY_HOST, default https://login.microsoftonline.com); without a secret, any
DefaultAzureCredential source (managed identity, Azure CLI, AZURE_* variables).`;

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
}

export function parseCommand(argv: readonly string[]): Parsed | 'help' {
  const { values, positionals } = parseArgs({
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
      'page-size': { type: 'string', default: '1000' },
      'max-retry-wait': { type: 'string', default: String(DEFAULT_RETRY.maxWaitMs / 1000) },
      'dry-run': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help || positionals.length === 0) return 'help';
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
    if (equals <= 0) throw new UsageError(`--filter ${filter}: give name=value, for example status=Active`);
    const name = filter.slice(0, equals);
    const known: readonly string[] = DATASETS[dataset].filters;
    if (!known.includes(name)) {
      throw new UsageError(`--filter ${name}: ${dataset} take ${known.join(', ')} (dates through --from/--to/--by; pages and order are the client's)`);
    }
    filters[name] = filter.slice(equals + 1);
  }
  const pageSize = Number(values['page-size']);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) throw new UsageError(`--page-size must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  const maxRetryWait = Number(values['max-retry-wait']);
  if (!Number.isFinite(maxRetryWait) || maxRetryWait < 0) throw new UsageError('--max-retry-wait must be seconds, 0 or more');
  return {
    dataset, from: values.from!, to: values.to!, by: values.by as DateBy, format: values.format, filters,
    out: values.out ?? '', pageSize, maxRetryWaitMs: maxRetryWait * 1000, dryRun: values['dry-run']!,
  };
}

export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let command: Parsed | 'help';
  try {
    command = parseCommand(argv);
  } catch (error) {
    process.stderr.write(`summary-client: ${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    return 2;
  }
  if (command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command.dryRun) {
    // The windows as the files will be named, with their days.
    for (const window of monthWindows(command.from, command.to)) process.stdout.write(`${windowLabel(window)}\t${window.from}\t${window.to}\n`);
    return 0;
  }
  try {
    const settings = readSettings(env);
    const api = summaryApi(settings);
    const report = reporter(process.stderr);
    const source = { service: settings.baseUrl, client: settings.client };
    const summary = await pull(api, { ...command, source, retry: { ...DEFAULT_RETRY, maxWaitMs: command.maxRetryWaitMs } }, report.observe);
    report.finish(summary, command.out);
    return summary.failed.length === 0 ? 0 : 1;
  } catch (error) {
    if (error instanceof SettingsError || error instanceof ManifestError || error instanceof RangeError) {
      process.stderr.write(`summary-client: ${error.message}\n`);
      return 2;
    }
    if (error instanceof TokenError) {
      process.stderr.write(`summary-client: no access token (check SUMMARY_CLIENT_ID, SUMMARY_CLIENT_SECRET, the tenant and the authority; nothing was pulled after this): ${error.message}\n`);
      return 2;
    }
    // Anything else is a fault of this client or of the machine (a full disk): one line, no stack.
    process.stderr.write(`summary-client: stopped by an unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
}
