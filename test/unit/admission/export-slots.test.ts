import { describe, expect, it } from '@jest/globals';
import { createExportSlots } from '../../../shared/admission/export-slots.js';

/** A caller: a client of its own tenant unless one is named. */
const as = (clientId: string, tenant = `tenant-of-${clientId}`) => ({ clientId, tenant });

describe('export slots', () => {
  it('hand out as many slots as the instance has, and a released slot is free again once', async () => {
    const slots = createExportSlots({ total: 2, perClient: 2, waitMs: 0 });
    const a = await slots.acquire(as('c1'));
    const b = await slots.acquire(as('c2'));
    expect(a && b).toBeTruthy();
    expect(await slots.acquire(as('c3'))).toBeUndefined();
    a!();
    a!();
    expect(await slots.acquire(as('c3'))).toBeDefined();
    expect(await slots.acquire(as('c4'))).toBeUndefined();
  });

  it('give one client at most its share, leaving the rest to other clients', async () => {
    const slots = createExportSlots({ total: 3, perClient: 1, waitMs: 0 });
    expect(await slots.acquire(as('busy'))).toBeDefined();
    expect(await slots.acquire(as('busy'))).toBeUndefined();
    expect(await slots.acquire(as('other'))).toBeDefined();
  });

  it('give one tenant at most one slot less than the instance has, whatever its number of clients', async () => {
    const two = createExportSlots({ total: 2, perClient: 1, waitMs: 0 });
    expect(await two.acquire(as('a1', 'A'))).toBeDefined();
    expect(await two.acquire(as('a2', 'A'))).toBeUndefined();
    expect(await two.acquire(as('b1', 'B'))).toBeDefined();
    const three = createExportSlots({ total: 3, perClient: 1, waitMs: 0 });
    expect(await three.acquire(as('a1', 'A'))).toBeDefined();
    expect(await three.acquire(as('a2', 'A'))).toBeDefined();
    expect(await three.acquire(as('a3', 'A'))).toBeUndefined();
    expect(await three.acquire(as('b1', 'B'))).toBeDefined();
    await expect(createExportSlots({ total: 1, perClient: 1, waitMs: 0 }).acquire(as('a1', 'A'))).resolves.toBeDefined();
  });

  it('let a caller wait briefly for a slot, and refuse it once the wait is over', async () => {
    const slots = createExportSlots({ total: 2, perClient: 1, waitMs: 200 });
    const first = (await slots.acquire(as('c1')))!;
    const waiting = slots.acquire(as('c1'));
    setTimeout(first, 50);
    const second = await waiting;
    expect(second).toBeDefined();
    const started = Date.now();
    expect(await slots.acquire(as('c1'))).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    second!();
    expect(await slots.acquire(as('c1'))).toBeDefined();
  });

  it('serve waiting callers in turn across tenants, not first come', async () => {
    const slots = createExportSlots({ total: 1, perClient: 1, perTenant: 1, waitMs: 5000 });
    const held = (await slots.acquire(as('a0', 'A')))!;
    const order: string[] = [];
    const wait = (clientId: string, tenant: string) => slots.acquire(as(clientId, tenant)).then((release) => {
      order.push(clientId);
      release!();
    });
    // Tenant A's three clients ask first, then tenant B's one: B is served second, not fourth.
    const all = [wait('a1', 'A'), wait('a2', 'A'), wait('a3', 'A'), wait('b1', 'B')];
    held();
    await Promise.all(all);
    expect(order).toEqual(['a1', 'b1', 'a2', 'a3']);
  });

  it('hand a freed slot to the first waiter that may take it', async () => {
    const slots = createExportSlots({ total: 1, perClient: 1, waitMs: 1000 });
    const held = (await slots.acquire(as('a')))!;
    const order: string[] = [];
    const b = slots.acquire(as('b')).then((release) => { order.push('b'); return release; });
    const c = slots.acquire(as('c')).then((release) => { order.push('c'); return release; });
    held();
    (await b)!();
    (await c)!();
    expect(order).toEqual(['b', 'c']);
  });

  describe('for a job\'s windows (background)', () => {
    const window = (clientId: string, tenant: string) => ({ clientId, tenant, background: true });

    it('leave a sibling client of the tenant a slot for its synchronous export', async () => {
      const slots = createExportSlots({ total: 3, perClient: 1, waitMs: 0 });
      expect(await slots.acquire(window('a1', 'A'))).toBeDefined();
      expect(await slots.acquire(as('a2', 'A'))).toBeDefined();
      // The tenant's share (2) is now taken by a window and a request: no second window.
      expect(await slots.acquire(window('a3', 'A'))).toBeUndefined();
    });

    it('run one window per tenant at once, and leave the instance a slot for requests', async () => {
      const slots = createExportSlots({ total: 3, perClient: 1, waitMs: 0 });
      expect(await slots.acquire(window('a1', 'A'))).toBeDefined();
      expect(await slots.acquire(window('a2', 'A'))).toBeUndefined();
      expect(await slots.acquire(window('b1', 'B'))).toBeDefined();
      expect(await slots.acquire(window('c1', 'C'))).toBeUndefined();
      expect(await slots.acquire(as('c1', 'C'))).toBeDefined();
    });

    it('never wait, even where a request would', async () => {
      const slots = createExportSlots({ total: 3, perClient: 1, waitMs: 60_000 });
      const held = (await slots.acquire(as('a1', 'A')))!;
      const waited = new Promise((resolve) => setTimeout(() => resolve('waited'), 0));
      await expect(Promise.race([slots.acquire(window('a1', 'A')), waited])).resolves.toBeUndefined();
      held();
      expect(await slots.acquire(window('a1', 'A'))).toBeDefined();
    });
  });
});
