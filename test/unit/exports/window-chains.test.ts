import { describe, expect, it } from '@jest/globals';
import { nextInChain, windowChains, WINDOWS_IN_FLIGHT_PER_JOB } from '../../../shared/exports/window-chains.js';

const job = { jobId: 'a'.repeat(32), tenant: 'contoso' };
const months = (count: number) => Array.from({ length: count }, (_, index) => `2025-${String(12 - index).padStart(2, '0')}`);

describe('window chains', () => {
  it('put at most WINDOWS_IN_FLIGHT_PER_JOB messages of a job on the queue, every window in exactly one chain, in order', () => {
    const labels = months(7);
    const chains = windowChains(job, labels);
    expect(chains).toHaveLength(Math.min(WINDOWS_IN_FLIGHT_PER_JOB, labels.length));
    const all = chains.flatMap((chain) => [chain.label, ...chain.then!]);
    expect([...all].sort()).toEqual([...labels].sort());
    for (const chain of chains) {
      const order = [chain.label, ...chain.then!].map((label) => labels.indexOf(label));
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
  });

  it('send as many messages as windows when there are fewer, and none for a job with nothing to export', () => {
    expect(windowChains(job, ['2025-01'])).toEqual([{ ...job, label: '2025-01', then: [] }]);
    expect(windowChains(job, [])).toEqual([]);
  });

  it('go on with the first window after a settled one that has no outcome, and end after the last', () => {
    const message = { ...job, label: '2025-12', then: ['2025-10', '2025-08', '2025-06'] };
    expect(nextInChain(message, new Set(['2025-12']))).toEqual({ ...job, label: '2025-10', then: ['2025-08', '2025-06'] });
    // A redelivered message whose successors were settled meanwhile skips them.
    expect(nextInChain(message, new Set(['2025-12', '2025-10', '2025-08']))).toEqual({ ...job, label: '2025-06', then: [] });
    expect(nextInChain(message, new Set(['2025-12', '2025-10', '2025-08', '2025-06']))).toBeUndefined();
    expect(nextInChain({ ...job, label: '2025-01' }, new Set())).toBeUndefined();
  });
});
