import { describe, expect, it } from '@jest/globals';
import { createExportSlots } from '../../../shared/output/export-slots.js';

describe('export slots', () => {
  it('hands out as many slots as it has, and a released slot is free again once', () => {
    const slots = createExportSlots(2);
    const a = slots.tryAcquire();
    const b = slots.tryAcquire();
    expect(a && b).toBeTruthy();
    expect(slots.tryAcquire()).toBeUndefined();
    a!();
    a!();
    expect(slots.tryAcquire()).toBeDefined();
    expect(slots.tryAcquire()).toBeUndefined();
  });
});
