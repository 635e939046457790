/**
 * An export job as it is kept: what was asked, by whom, through which view, and what each window
 * came to. Plain data, written by the kick-off (the job), the window workers (each window's
 * outcome) and a cancel (the job again); read by the status operation and the workers.
 */
import type { ProblemDocument } from '../errors/problem-response.js';
import type { TakenVersion } from './record-store.js';
import type { AdmissionLedger } from '../admission/job-admission.js';

/** One calendar month of an export job's range, cut to the range: both ends included, UTC days (export-windows.ts). */
export interface ExportWindow {
  /** The calendar month, `YYYY-MM`: the window's name in the manifest and in `ifNoneMatch`. */
  readonly label: string;
  readonly from: string;
  readonly to: string;
}

/** A job, as the kick-off recorded it. */
export interface ExportJob {
  /** 128 random bits, hex: unguessable, and the only name of the job's files. */
  readonly id: string;
  /** The data tenant it reads: its partition, and the wall around it. */
  readonly tenant: string;
  /** The client application that started it: only it sees the job. */
  readonly clientId: string;
  readonly resource: string;
  /** The caller's roles at kick-off: the view every window is exported through. */
  readonly roles: readonly string[];
  /** X-Summary-Schema of that view's Parquet: a view that changes since fails the job's windows and its status. */
  readonly schema: string;
  /** The filters and order as given, the whole range included. */
  readonly given: Readonly<Record<string, string>>;
  /** The request as understood: what was given, with the order every window is written in. */
  readonly request: Readonly<Record<string, string>>;
  readonly range: { readonly from: string; readonly to: string };
  readonly windows: readonly ExportWindow[];
  readonly ifNoneMatch: Readonly<Record<string, string>>;
  readonly createdAt: string;
  /** Every write before it is in the files (resultAsOf of the kick-off). */
  readonly transactionTime: string;
  /** When the job, its files and their URLs go. */
  readonly expires: string;
  /** Its windows were all enqueued: only then does the job exist for its caller. */
  readonly accepted: boolean;
  /** Cancelled by its caller: gone for the caller, its files deleted. */
  readonly cancelled: boolean;
}

/** One file of a window, as written. */
export interface ExportFileEntry {
  /** `contracts`; for invoices `invoices` or `invoice_tables`. */
  readonly table: string;
  /** The blob's name in the exports container. */
  readonly blob: string;
  readonly records: number;
  readonly bytes: number;
  /** SHA-256 of the file, hex. */
  readonly sha256: string;
}

/** What one window came to. */
export interface WindowOutcome {
  readonly label: string;
  /** exported: its files are written; unchanged: its ETag was the caller's; failed: see `problem`. */
  readonly status: 'exported' | 'unchanged' | 'failed';
  readonly etag?: string;
  readonly records: number;
  readonly files: readonly ExportFileEntry[];
  readonly problem?: ProblemDocument;
  /** The version behind `etag`, kept so that a later kick-off sent that ETag can check the window together with its neighbours (check-windows.ts); never in a status document. */
  readonly checked?: TakenVersion;
}

/** Where jobs are kept. Every call is scoped to a data tenant (the partition); a store fault is 503 STORE_UNAVAILABLE (store-fault.ts), translated once by the store. */
export interface ExportJobs {
  /** Records a new job (not accepted yet). */
  create(job: ExportJob): Promise<void>;
  /** Replaces a job's record (accepted, cancelled). */
  replace(job: ExportJob): Promise<void>;
  get(tenant: string, id: string): Promise<ExportJob | undefined>;
  /** Removes a job that was never accepted (its kick-off failed). */
  remove(tenant: string, id: string): Promise<void>;
  /** The outcomes recorded so far of a job's windows. */
  outcomes(tenant: string, id: string): Promise<WindowOutcome[]>;
  /**
   * Records a window's outcome unless it has one: true when this one was recorded, false when
   * another was first (a redelivered message that redid the window). An outcome never changes.
   */
  record(job: ExportJob, outcome: WindowOutcome): Promise<boolean>;
  /** Marks a job whose windows all have their outcome (or that was cancelled): it leaves the ledger of admitted jobs. */
  markDone(job: ExportJob): Promise<void>;
  /**
   * The versions recorded with these ETags in the tenant's outcomes (any client's job: an ETag names
   * its view and filters), the latest taken of each; ETags recorded with none are left out.
   */
  versionsOf(tenant: string, etags: readonly string[]): Promise<Map<string, TakenVersion>>;
  /** The jobs admitted and not yet done, against the caps (job-admission.ts). */
  readonly admissions: AdmissionLedger;
}
