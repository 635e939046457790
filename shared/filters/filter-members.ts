import { z } from 'zod';
import { STATUSES, type Resource } from '../model/resources.js';
import type { ErrorCode } from '../errors/error-codes.js';

/** Where a member came from: JSON body values keep their JSON type, query values are strings. */
export type Source = 'body' | 'query';

/** How one member is checked: its schema per source (built once), the code and message when it fails. */
export interface MemberRule {
  readonly schema: Readonly<Record<Source, z.ZodType<string | number>>>;
  readonly code: ErrorCode;
  readonly expected: string;
}

/** The same schema whatever the source. */
const either = (schema: z.ZodType<string | number>): MemberRule['schema'] => ({ body: schema, query: schema });

const text: MemberRule = {
  schema: either(z.string().min(1).max(128)),
  code: 'INVALID_FILTER',
  expected: 'a non-empty string of at most 128 characters',
};
const date: MemberRule = {
  schema: either(z.string()),
  code: 'INVALID_DATE',
  expected: 'a calendar date YYYY-MM-DD, for example 2025-01-31',
};
const positiveInteger = (what: string): MemberRule => ({
  // In a JSON body a number must be a JSON number; in the query string every value is text.
  schema: {
    body: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    query: z.string().regex(/^[1-9][0-9]{0,14}$/).transform(Number),
  },
  code: 'INVALID_FILTER',
  expected: `${what}: a whole number ≥ 1 (a JSON integer in the body)`,
});

const COMMON: Readonly<Record<string, MemberRule>> = {
  contractWorkspaceID: {
    schema: either(z.string().regex(/^CW[0-9]{4,10}$/)),
    code: 'INVALID_FILTER',
    expected: '"CW" followed by 4 to 10 digits, for example CW000123',
  },
  createdFrom: date,
  createdTo: date,
  updatedFrom: date,
  updatedTo: date,
  orderBy: { schema: either(z.string()), code: 'INVALID_ORDER_BY', expected: 'the name of a sortable field' },
  order: { schema: either(z.enum(['asc', 'desc'])), code: 'INVALID_FILTER', expected: '"asc" or "desc"' },
  page: positiveInteger('the page number'),
  pageSize: positiveInteger('the page size'),
};

const INVOICES_ONLY: Readonly<Record<string, MemberRule>> = {
  invoiceDateFrom: date,
  invoiceDateTo: date,
  contractId: text,
  supplierId: text,
  status: {
    schema: either(z.enum(STATUSES.invoices as [string, ...string[]])),
    code: 'INVALID_FILTER',
    expected: `one of ${STATUSES.invoices.join(', ')}`,
  },
};

/** The members each endpoint accepts, by their exact (case-sensitive) names. */
export const FILTER_MEMBERS: Readonly<Record<Resource, Readonly<Record<string, MemberRule>>>> = {
  contracts: COMMON,
  invoices: { ...COMMON, ...INVOICES_ONLY },
};

/** Date ranges: the filter each pair of members sets. */
export const DATE_RANGES = [
  { from: 'createdFrom', to: 'createdTo', filter: 'created' },
  { from: 'updatedFrom', to: 'updatedTo', filter: 'updated' },
  { from: 'invoiceDateFrom', to: 'invoiceDateTo', filter: 'invoiceDate' },
] as const;
