import { describe, expect, it } from '@jest/globals';
import type { Manifest, ManifestWindow } from '../../../client/src/manifest.js';
import { plan } from '../../../client/src/plan.js';
import { monthWindows } from '../../../client/src/windows.js';

function entry(from: string, to: string, status: ManifestWindow['status']): ManifestWindow {
  return { window: `${from}_${to}`, from, to, status, etag: 'W/"e"', rows: 0, bytes: 0, files: [], requestIds: [], finishedAt: '' };
}

const manifest = (windows: ManifestWindow[]): Manifest => ({ version: 3, request: { service: 's', client: 'c', dataset: 'contracts', format: 'parquet', by: 'created', filters: {} }, windows });

describe('plan', () => {
  it('visits the range\'s months and the windows the folder holds outside them, in date order', () => {
    const units = plan(manifest([entry('2025-01-01', '2025-01-31', 'done')]), '/nowhere', monthWindows('2025-03-01', '2025-04-30'));
    expect(units.map((unit) => [unit.window.from, unit.window.to])).toEqual([['2025-01-01', '2025-01-31'], ['2025-03-01', '2025-03-31'], ['2025-04-01', '2025-04-30']]);
  });

  it('visits overlapping windows outside the range once, as one window pulled whole (a failed month beside its done parts)', () => {
    const held = [entry('2025-10-01', '2025-10-15', 'done'), entry('2025-10-16', '2025-10-31', 'done'), entry('2025-10-01', '2025-10-31', 'failed')];
    const units = plan(manifest(held), '/nowhere', monthWindows('2025-11-01', '2025-11-30'));
    expect(units.map((unit) => [unit.window.from, unit.window.to, unit.parts])).toEqual([['2025-10-01', '2025-10-31', null], ['2025-11-01', '2025-11-30', null]]);
  });

  it('refuses a range that would cover a held window in part', () => {
    expect(() => plan(manifest([entry('2025-03-10', '2025-04-10', 'done')]), '/nowhere', monthWindows('2025-03-01', '2025-03-31'))).toThrow(/overlaps only in part/);
  });
});
