/**
 * Bounds the exports running at once in one instance, fairly: each may hold up to
 * PARQUET_MAX_BYTES plus a row group in memory, so the instance holds at most `total` of them, and
 * one client at most `perClient`, so a client running exports in a loop cannot take the slots other
 * clients' exports need.
 */
export interface ExportSlots {
  /**
   * A release function once a slot is free for this client, waiting at most the configured time
   * for one; undefined when none came free (answer 503 EXPORTS_BUSY).
   */
  acquire(clientId: string): Promise<(() => void) | undefined>;
}

/** Sizes of the slot pool. */
export interface ExportSlotOptions {
  /** Exports at once in the instance. */
  readonly total: number;
  /** Exports at once per client. */
  readonly perClient: number;
  /** How long a request waits for a slot before it is refused. */
  readonly waitMs: number;
}

/**
 * Parquet exports one instance runs at once: two at the 100 MiB default stay well inside an EP1's
 * memory; one per client, so a client exporting in a loop leaves the other slot to other clients;
 * a client asking for a second waits briefly for its own slot before 503 EXPORTS_BUSY.
 */
export const EXPORT_SLOTS = { total: 2, perClient: 1, waitMs: 2000 } as const;

interface Waiter {
  readonly clientId: string;
  readonly grant: (release: () => void) => void;
}

/** Creates the slot pool. Waiters are served in arrival order, skipping those whose client is at its cap. */
export function createExportSlots(options: ExportSlotOptions): ExportSlots {
  let running = 0;
  const perClient = new Map<string, number>();
  const waiters: Waiter[] = [];

  const fits = (clientId: string) => running < options.total && (perClient.get(clientId) ?? 0) < options.perClient;
  const take = (clientId: string): (() => void) => {
    running++;
    perClient.set(clientId, (perClient.get(clientId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      running--;
      const left = perClient.get(clientId)! - 1;
      if (left === 0) perClient.delete(clientId);
      else perClient.set(clientId, left);
      const next = waiters.findIndex((waiter) => fits(waiter.clientId));
      if (next >= 0) {
        const [waiter] = waiters.splice(next, 1);
        waiter!.grant(take(waiter!.clientId));
      }
    };
  };

  return {
    acquire(clientId) {
      if (fits(clientId)) return Promise.resolve(take(clientId));
      if (options.waitMs <= 0) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        const waiter: Waiter = {
          clientId,
          grant: (release) => {
            clearTimeout(timer);
            resolve(release);
          },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          resolve(undefined);
        }, options.waitMs);
        waiters.push(waiter);
      });
    },
  };
}
