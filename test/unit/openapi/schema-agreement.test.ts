import { describe, expect, it } from '@jest/globals';
import type { z } from 'zod';
import { buildAllowlist } from '../../../shared/access/allowlist.js';
import { DATAPOINTS } from '../../../shared/access/datapoints.js';
import { ApiError } from '../../../shared/errors/api-error.js';
import { ERROR_CODES, DELTA_CODES, EXPORT_JOB_CODES, type ErrorCode } from '../../../shared/errors/error-codes.js';
import { deltaProblemName } from '../../../openapi/delta-operations.js';
import { exportProblemName } from '../../../openapi/export-operations.js';
import { jobStatus } from '../../../shared/exports/export-manifest.js';
import type { ExportJob } from '../../../shared/store/export-jobs.js';
import { toProblem, type ProblemDocument } from '../../../shared/errors/problem-response.js';
import { buildJsonEnvelope, type JsonEnvelope } from '../../../shared/output/json-envelope.js';
import { CONTRACTS } from '../../../shared/model/contracts.js';
import { INVOICES } from '../../../shared/model/invoices.js';
import type { ResourceDefinition } from '../../../shared/model/resource-definition.js';
import type { StoredRecord, View } from '../../../shared/model/view.js';
import { cleanRecord, newCleaningReport, planCleaning } from '../../../shared/output/record-cleaner.js';
import { buildOpenApi } from '../../../openapi/build-openapi.js';
import { MetaSchema, PaginationSchema } from '../../../openapi/envelope-schema.js';
import { NOT_OPERATION_CODES } from '../../../openapi/error-responses.js';
import { ProblemSchema } from '../../../openapi/problem-schema.js';
import { generateContracts, generateInvoices } from '../../../dev/seed-data.js';
import { createDocumentValidator } from '../../support/document-validator.js';
import { paginate } from '../../../shared/output/pagination.js';

// Compile-time agreement between the zod schemas the document is built from and the types the
// service serializes: `npm test` type-checks before jest runs, so a drift stops the build.
// Strict equality: optional members must match by name too, not only be mutually assignable.
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
const paginationAgrees: Same<z.infer<typeof PaginationSchema>, JsonEnvelope['pagination']> = true;
const metaAgrees: Same<z.infer<typeof MetaSchema>, JsonEnvelope['meta']> = true;
const problemMembersAgree: Same<keyof z.infer<typeof ProblemSchema>, keyof ProblemDocument> = true;
const problemFits: ProblemDocument = {} as z.infer<typeof ProblemSchema>;

const document = buildOpenApi() as Record<string, unknown>;
const validator = createDocumentValidator(document);
const allowlist = buildAllowlist(DATAPOINTS);
const contracts = generateContracts('contoso', 40);
const invoices = generateInvoices('contoso', 40, contracts);
const ROLE_SETS = [['Data.Read'], ...Object.keys(DATAPOINTS).filter((role) => role !== 'Data.Read').map((role) => ['Data.Read', role]), Object.keys(DATAPOINTS)];
const meta = { requestId: 'req-1', generatedAt: new Date('2025-06-01T12:00:00Z') };

/** Records as a JSON page answers them through `view` (every stored record here is well-formed). */
function projected(records: readonly StoredRecord[], view: View): StoredRecord[] {
  const plan = planCleaning(view);
  const report = newCleaningReport();
  return records.map((record) => cleanRecord(plan, record, report)!);
}

describe('the document and the code agree on', () => {
  it('the compile-time shapes of pagination, meta and the problem document', () => {
    expect([paginationAgrees, metaAgrees, problemMembersAgree, typeof problemFits]).toEqual([true, true, true, 'object']);
  });

  const cases: [string, ResourceDefinition, readonly StoredRecord[]][] = [['ContractsEnvelope', CONTRACTS, contracts], ['InvoicesEnvelope', INVOICES, invoices]];
  it.each(cases)('the %s, for every role combination, a last page and a page past the end', (name, resource, records) => {
    const schema = `/components/schemas/${name}`;
    for (const roles of ROLE_SETS) {
      const view = allowlist.view(resource, roles);
      for (const [page, shown] of [[1, records], [2, records.slice(0, 0)]] as const) {
        const envelope = buildJsonEnvelope(projected(shown, view), paginate({ page, pageSize: records.length, totalRecords: records.length, resultWindow: 10_000 }), meta);
        expect([roles, page, validator.errorsAt(schema, JSON.parse(JSON.stringify(envelope)))]).toEqual([roles, page, []]);
      }
    }
  });

  it('every problem document, under the response of its own status', () => {
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      if (code in NOT_OPERATION_CODES) continue;
      const problem = toProblem(new ApiError(code, 'detail', { errors: [{ member: 'createdFrom', code, message: 'm' }] }), 'req-1');
      const status = ERROR_CODES[code].status;
      // The export jobs' and the deltas' own codes are answered by their operations; EXPORT_WINDOW_FAILED only inside a manifest.
      const response = code === 'EXPORT_WINDOW_FAILED' ? undefined : EXPORT_JOB_CODES.has(code) ? exportProblemName(status) : DELTA_CODES.has(code) ? deltaProblemName(status) : `Problem${status}`;
      const pointer = response ? `/components/responses/${response}/content/application~1problem+json/schema` : '/components/schemas/Problem';
      expect([code, validator.errorsAt(pointer, problem)]).toEqual([code, []]);
    }
  });

  it('an export job\'s status document, running and completed (files, an unchanged and a failed window)', () => {
    const job: ExportJob = {
      id: 'a'.repeat(32), tenant: 'contoso', clientId: 'c', resource: 'contracts', roles: ['Data.Read'], schema: 'b'.repeat(32),
      given: { createdFrom: '2025-01-01', createdTo: '2025-03-31' }, request: { createdFrom: '2025-01-01', createdTo: '2025-03-31', orderBy: 'createdDate', order: 'asc' },
      range: { from: 'createdFrom', to: 'createdTo' },
      windows: [{ label: '2025-01', from: '2025-01-01', to: '2025-01-31' }, { label: '2025-02', from: '2025-02-01', to: '2025-02-28' }, { label: '2025-03', from: '2025-03-01', to: '2025-03-31' }],
      ifNoneMatch: {}, createdAt: '2025-04-01T00:00:00Z', transactionTime: '2025-03-31T23:59:55Z', expires: '2025-04-02T00:00:00Z', accepted: true, cancelled: false,
    };
    // Read one second after its latest write: still moving (QUIET_SECONDS), which the manifest says.
    const takenAt = Date.UTC(2025, 5, 1, 12);
    const exported = { label: '2025-01', status: 'exported' as const, etag: 'W/"1"', records: 2, files: [{ table: 'contracts', blob: 'x/2025-01/contracts-000.parquet', records: 2, bytes: 10, sha256: 'c'.repeat(64) }], checked: { records: 2, latestWrite: takenAt / 1000 - 1, takenAt } };
    const failed = { label: '2025-03', status: 'failed' as const, records: 0, files: [], problem: toProblem(new ApiError('EXPORT_WINDOW_FAILED', 'failed'), 'export-1') };
    const running = jobStatus(job, [exported]);
    expect(validator.errorsAt('/components/schemas/ExportJobStatus', JSON.parse(JSON.stringify(running)))).toEqual([]);
    const completed = jobStatus(job, [exported, { label: '2025-02', status: 'unchanged', etag: 'W/"2"', records: 0, files: [] }, failed], new Map([['x/2025-01/contracts-000.parquet', 'https://storage.example/exports/x?sig=1']]));
    expect(completed.status).toBe('completed');
    expect(completed.windows.map((window) => window.moving ?? false)).toEqual([true, false, false]);
    const settled = jobStatus(job, [{ ...exported, checked: { ...exported.checked, latestWrite: takenAt / 1000 - 6 } }]);
    expect(settled.windows[0]!.moving).toBeUndefined();
    expect(validator.errorsAt('/components/schemas/ExportJobStatus', JSON.parse(JSON.stringify(completed)))).toEqual([]);
    expect(validator.errorsAt('/components/schemas/ExportJobStatus', { ...completed, extra: 1 }).join()).toMatch(/additional/);
  });

  it('nothing more: a record carrying a field outside the model fails the envelope schema', () => {
    const envelope = buildJsonEnvelope(projected(contracts.slice(0, 1), allowlist.view(CONTRACTS, ['Data.Read'])), paginate({ page: 1, pageSize: 1, totalRecords: 1, resultWindow: 10_000 }), meta);
    const leaked = { ...envelope, data: [{ ...envelope.data[0], tenantId: 'contoso' }] };
    expect(validator.errorsAt('/components/schemas/ContractsEnvelope', JSON.parse(JSON.stringify(leaked))).join()).toMatch(/additional/);
  });

  it('nothing else: a problem answered under another status fails that status\'s schema', () => {
    const problem = toProblem(new ApiError('MISSING_ROLE', 'detail'), 'req-1');
    expect(validator.errorsAt('/components/responses/Problem401/content/application~1problem+json/schema', problem)).not.toEqual([]);
  });
});
