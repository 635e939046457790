import fc from 'fast-check';
import type { OwnTenant } from './own-tenant.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

/** What a random night may do to a contract of January–April 2024 besides creating one. */
export type ContractWrite = 'rename' | 'delete' | 'draft' | 'publish' | 'move' | 'out';

let renamed = 0;

/**
 * Random nights (fast-check: `numRuns` runs of up to three nights of up to four writes) to the
 * contracts of January–April 2024 of an own tenant, through the real SDK: creates (by `contract`,
 * given the created date), and `kinds` of changes to a stored one (`out` moves it before the
 * range); after each night `check` runs (a pull of the folder, compared with the store).
 */
export async function randomContractNights(own: OwnTenant, options: { readonly contract: (createdDate: string) => Doc; readonly kinds: readonly ContractWrite[]; readonly numRuns: number; readonly check: () => Promise<void> }): Promise<void> {
  const write = fc.oneof(
    fc.record({ kind: fc.constant('create' as const), month: fc.integer({ min: 1, max: 4 }), day: fc.integer({ min: 1, max: 28 }) }),
    fc.record({ kind: fc.constantFrom(...options.kinds), index: fc.nat(), month: fc.integer({ min: 1, max: 4 }) }),
  );
  await fc.assert(fc.asyncProperty(fc.array(fc.array(write, { maxLength: 4 }), { minLength: 1, maxLength: 3 }), async (nights) => {
    for (const writes of nights) {
      for (const change of writes) {
        const documents = (await own.documents('contracts')).filter((doc) => doc.createdDate < '2024-05');
        if (change.kind === 'create') {
          await own.write('contracts', [options.contract(`2024-0${change.month}-${String(change.day).padStart(2, '0')}T08:00:00.000Z`)]);
        } else if (documents.length > 0) {
          const doc = documents[change.index % documents.length]!;
          if (change.kind === 'delete') await own.remove('contracts', [doc.id]);
          else await own.write('contracts', [{ ...doc, ...{ rename: { title: `renamed ${++renamed}` }, draft: { status: 'Draft' }, publish: { status: 'Published' }, move: { createdDate: `2024-0${change.month}-15T00:00:00.000Z` }, out: { createdDate: '2023-12-31T23:00:00.000Z' } }[change.kind] }]);
        }
      }
      await options.check();
    }
  }), { numRuns: options.numRuns });
}
