import { describe, expect, it } from '@jest/globals';
import type { z } from 'zod';
import { buildAllowlist } from '../../../shared/access/allowlist.js';
import { DATAPOINTS } from '../../../shared/access/datapoints.js';
import { ApiError } from '../../../shared/errors/api-error.js';
import { ERROR_CODES, type ErrorCode } from '../../../shared/errors/error-codes.js';
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
      const pointer = `/components/responses/Problem${ERROR_CODES[code].status}/content/application~1problem+json/schema`;
      expect([code, validator.errorsAt(pointer, problem)]).toEqual([code, []]);
    }
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
