/**
 * How a job's windows reach the queue: not all at once, but as a few chains. Each message carries
 * the windows that follow it in its chain, and the worker that settles a window (exported,
 * unchanged or failed) sends the next one. So a job has at most WINDOWS_IN_FLIGHT_PER_JOB messages
 * on the queue, a tenant at most that many per running job, and a window of another tenant that
 * arrives later waits behind those few, not behind every month of every job before it: tenants
 * are served in turn, not in arrival order.
 */
import type { WindowMessage } from './export-storage.js';

/**
 * Messages of one job on the queue at once. One: an instance runs one window of a tenant at a time
 * (export-slots.ts), so a second chain of the same job would only be refused its slot and come
 * back later; a tenant's jobs still spread over instances when the app scales out.
 */
export const WINDOWS_IN_FLIGHT_PER_JOB = 1;

/**
 * The first message of each chain of a job's windows to export, dealt in turn (`labels` in the
 * order they should run).
 *
 * @example
 * windowChains({ jobId, tenant }, ['2025-03', '2025-02', '2025-01']);
 * // [{ jobId, tenant, label: '2025-03', then: ['2025-02', '2025-01'] }]
 */
export function windowChains(job: Pick<WindowMessage, 'jobId' | 'tenant'>, labels: readonly string[]): WindowMessage[] {
  const chains = labels.slice(0, WINDOWS_IN_FLIGHT_PER_JOB).map((label) => ({ ...job, label, then: [] as string[] }));
  labels.slice(WINDOWS_IN_FLIGHT_PER_JOB).forEach((label, index) => chains[index % chains.length]!.then.push(label));
  return chains;
}

/**
 * The message that goes on with a chain once its window is settled: the first window after it
 * that has no outcome yet (a redelivered message skips what a first delivery already settled),
 * or undefined at the chain's end.
 */
export function nextInChain(message: WindowMessage, settled: ReadonlySet<string>): WindowMessage | undefined {
  const rest = message.then ?? [];
  const at = rest.findIndex((label) => !settled.has(label));
  return at < 0 ? undefined : { jobId: message.jobId, tenant: message.tenant, label: rest[at]!, then: rest.slice(at + 1) };
}
