import type { StackTarget } from '../dev/stack-child.js';

/** One kind of request of the mixed workload, with the answer it must get. */
export interface RequestKind {
  readonly name: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly expectedStatus: number;
  /** For 200s: the tenant every record must belong to (ids carry the tenant), and fields that must not appear. */
  readonly tenant?: string;
  readonly forbiddenFields?: readonly string[];
}

/**
 * The mixed workload: valid JSON calls of three callers and two tenants, bad requests and
 * unauthorized calls, each with the one answer it must get.
 */
export function workload(target: StackTarget): RequestKind[] {
  const headers = (token: string, extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${token}`,
    'ocp-apim-subscription-key': target.subscriptionKey,
    'x-api-key': target.apiKey,
    'content-type': 'application/json',
    accept: 'application/json',
    ...extra,
  });
  const t = target.tokens;
  const march = { createdFrom: '2025-03-01', createdTo: '2025-03-31' };
  return [
    { name: 'contracts page (full)', path: '/v1/contracts/summary', headers: headers(t['contoso-full']!), body: JSON.stringify({ ...march, pageSize: 25 }), expectedStatus: 200, tenant: 'CONTOSO' },
    { name: 'contracts page (basic)', path: '/v1/contracts/summary', headers: headers(t['contoso-basic']!), body: JSON.stringify({ updatedFrom: '2025-06-01', updatedTo: '2025-06-30', orderBy: 'title' }), expectedStatus: 200, tenant: 'CONTOSO', forbiddenFields: ['supplierName', 'contractAmount', 'ownerEmail'] },
    { name: 'invoices page (fabrikam)', path: '/v1/invoices/summary', headers: headers(t['fabrikam-full']!), body: JSON.stringify({ ...march, pageSize: 50, orderBy: 'totalAmount', order: 'desc' }), expectedStatus: 200, tenant: 'FABRIKAM' },
    { name: 'invoices page (basic)', path: '/v1/invoices/summary', headers: headers(t['contoso-basic']!), body: JSON.stringify({ status: 'Paid', pageSize: 10 }), expectedStatus: 200, tenant: 'CONTOSO', forbiddenFields: ['totalAmount', 'supplierId'] },
    { name: 'bad date', path: '/v1/contracts/summary', headers: headers(t['contoso-full']!), body: JSON.stringify({ createdFrom: '2025-02-30', createdTo: '2025-03-01' }), expectedStatus: 400 },
    { name: 'range too long', path: '/v1/invoices/summary', headers: headers(t['contoso-full']!), body: JSON.stringify({ createdFrom: '2025-01-01', createdTo: '2025-03-01' }), expectedStatus: 400 },
    { name: 'malformed JSON', path: '/v1/contracts/summary', headers: headers(t['contoso-full']!), body: '{"page":', expectedStatus: 400 },
    { name: 'wrong x-api-key', path: '/v1/contracts/summary', headers: headers(t['contoso-full']!, { 'x-api-key': 'dev-api-key-wrong-00000' }), body: '{}', expectedStatus: 401 },
    { name: 'forged token', path: '/v1/invoices/summary', headers: headers(`${t['contoso-full']!.slice(0, -4)}AAAA`), body: '{}', expectedStatus: 401 },
    { name: 'no role', path: '/v1/contracts/summary', headers: headers(t['contoso-norole']!), body: '{}', expectedStatus: 403 },
  ];
}
