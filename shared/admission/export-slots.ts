/**
 * Bounds the exports running at once in one instance, fairly: each may hold up to
 * PARQUET_MAX_BYTES plus a row group in memory, so the instance holds at most `total` of them; one
 * client at most `perClient`, and one data tenant at most `perTenant` (one less than the
 * instance's slots), so that neither a client exporting in a loop nor a tenant with several
 * clients doing so can take the slots another tenant's exports need. Callers that wait are served
 * in turn across tenants, not first come.
 *
 * A background export (a job's window) is a guest: it never waits, it takes a slot only where one
 * is left afterwards both in the instance and in its tenant's share, and one tenant runs at most
 * one of them at once. So a client's jobs never take the slots a synchronous export of a sibling
 * client (or of another tenant) needs, and a window refused goes back on its queue instead.
 */
export interface ExportSlots {
  /**
   * A release function once a slot is free for this caller, waiting at most the configured time
   * for one (a background caller never waits); undefined when none came free (a request answers
   * 503 EXPORTS_BUSY, a window goes back on its queue).
   */
  acquire(caller: SlotCaller): Promise<(() => void) | undefined>;
}

/** Who asks for a slot: the client application and the data tenant it reads. */
export interface SlotCaller {
  readonly clientId: string;
  readonly tenant: string;
  /** A job's window rather than a request: a guest that never waits (see above). */
  readonly background?: boolean;
}

/** Sizes of the slot pool. */
export interface ExportSlotOptions {
  /** Exports at once in the instance. */
  readonly total: number;
  /** Exports at once per client. */
  readonly perClient: number;
  /** Exports at once per data tenant (default: one less than `total`, at least one). */
  readonly perTenant?: number;
  /** How long a request waits for a slot before it is refused. */
  readonly waitMs: number;
}

/**
 * Parquet exports one instance runs at once: three at the 100 MiB default stay well inside an
 * EP1's 3.5 GB; one per client and two per tenant, so a client or a tenant exporting in a loop
 * leaves a slot to other tenants, and a tenant's one running window leaves its sibling clients a
 * synchronous export; a caller asking for a slot it cannot have yet waits briefly before 503
 * EXPORTS_BUSY.
 */
export const EXPORT_SLOTS = { total: 3, perClient: 1, waitMs: 2000 } as const;

/** Windows of one tenant that run at once in one instance: its other windows go back on the queue. */
const BACKGROUND_PER_TENANT = 1;

interface Waiter extends SlotCaller {
  readonly grant: (release: () => void) => void;
}

/**
 * Creates the slot pool.
 *
 * @example
 * const slots = createExportSlots(EXPORT_SLOTS);
 * const release = await slots.acquire({ clientId, tenant });
 * if (release === undefined) throw new ApiError('EXPORTS_BUSY', ...); // no slot within waitMs
 * try { await exportIt(); } finally { release(); }
 */
export function createExportSlots(options: ExportSlotOptions): ExportSlots {
  const perTenant = options.perTenant ?? Math.max(1, options.total - 1);
  let running = 0;
  const perClient = new Map<string, number>();
  const ofTenant = new Map<string, number>();
  const backgroundOfTenant = new Map<string, number>();
  // The waiters of each tenant in arrival order; the tenants in the order they are served in
  // turn (a tenant just served goes last).
  const queues = new Map<string, Waiter[]>();

  // A guest leaves one slot free in the instance and in its tenant's share after taking its own.
  const fits = ({ clientId, tenant, background = false }: SlotCaller) => {
    const spare = background ? 1 : 0;
    return running + spare < options.total
      && (perClient.get(clientId) ?? 0) < options.perClient
      && (ofTenant.get(tenant) ?? 0) + spare < perTenant
      && (!background || (backgroundOfTenant.get(tenant) ?? 0) < BACKGROUND_PER_TENANT);
  };
  const count = (counts: Map<string, number>, key: string, by: number) => {
    const value = (counts.get(key) ?? 0) + by;
    if (value === 0) counts.delete(key);
    else counts.set(key, value);
  };
  const take = (caller: SlotCaller): (() => void) => {
    running++;
    count(perClient, caller.clientId, 1);
    count(ofTenant, caller.tenant, 1);
    if (caller.background) count(backgroundOfTenant, caller.tenant, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      running--;
      count(perClient, caller.clientId, -1);
      count(ofTenant, caller.tenant, -1);
      if (caller.background) count(backgroundOfTenant, caller.tenant, -1);
      serveNext();
    };
  };
  /** Gives a freed slot to the first waiter that may take it, tenant by tenant in turn. */
  const serveNext = () => {
    for (const [tenant, queue] of queues) {
      const index = queue.findIndex(fits);
      if (index < 0) continue;
      const [waiter] = queue.splice(index, 1);
      queues.delete(tenant);
      if (queue.length > 0) queues.set(tenant, queue);
      waiter!.grant(take(waiter!));
      return;
    }
  };
  const leave = (waiter: Waiter) => {
    const queue = queues.get(waiter.tenant);
    if (!queue) return;
    queue.splice(queue.indexOf(waiter), 1);
    if (queue.length === 0) queues.delete(waiter.tenant);
  };

  return {
    acquire(caller) {
      // No waiter can take a slot a caller fits (each release hands its slot on at once), so a
      // caller that fits overtakes no one.
      if (fits(caller)) return Promise.resolve(take(caller));
      const waitMs = caller.background ? 0 : options.waitMs;
      if (waitMs <= 0) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        const waiter: Waiter = {
          ...caller,
          grant: (release) => {
            clearTimeout(timer);
            resolve(release);
          },
        };
        const timer = setTimeout(() => {
          leave(waiter);
          resolve(undefined);
        }, waitMs);
        const queue = queues.get(caller.tenant);
        if (queue) queue.push(waiter);
        else queues.set(caller.tenant, [waiter]);
      });
    },
  };
}
