import { describe, expect, it } from '@jest/globals';
import { createExportSlots } from '../../../shared/output/export-slots.js';

describe('export slots', () => {
  it('hand out as many slots as the instance has, and a released slot is free again once', async () => {
    const slots = createExportSlots({ total: 2, perClient: 2, waitMs: 0 });
    const a = await slots.acquire('c1');
    const b = await slots.acquire('c2');
    expect(a && b).toBeTruthy();
    expect(await slots.acquire('c3')).toBeUndefined();
    a!();
    a!();
    expect(await slots.acquire('c3')).toBeDefined();
    expect(await slots.acquire('c4')).toBeUndefined();
  });

  it('give one client at most its share, leaving the rest to other clients', async () => {
    const slots = createExportSlots({ total: 2, perClient: 1, waitMs: 0 });
    expect(await slots.acquire('busy')).toBeDefined();
    expect(await slots.acquire('busy')).toBeUndefined();
    expect(await slots.acquire('other')).toBeDefined();
  });

  it('let a client wait briefly for its own slot, and refuse it once the wait is over', async () => {
    const slots = createExportSlots({ total: 2, perClient: 1, waitMs: 200 });
    const first = (await slots.acquire('c1'))!;
    const waiting = slots.acquire('c1');
    setTimeout(first, 50);
    const second = await waiting;
    expect(second).toBeDefined();
    const started = Date.now();
    expect(await slots.acquire('c1')).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    second!();
    expect(await slots.acquire('c1')).toBeDefined();
  });

  it('hand a freed slot to the first waiter whose client may take it', async () => {
    const slots = createExportSlots({ total: 1, perClient: 1, waitMs: 1000 });
    const held = (await slots.acquire('a'))!;
    const order: string[] = [];
    const b = slots.acquire('b').then((release) => { order.push('b'); return release; });
    const c = slots.acquire('c').then((release) => { order.push('c'); return release; });
    held();
    (await b)!();
    (await c)!();
    expect(order).toEqual(['b', 'c']);
  });
});
