import { describe, expect, it } from '@jest/globals';
import { reporter } from '../../../client/src/progress.js';
import { labelRanges, type PullEvent, type PullSummary, type WindowOutcome } from '../../../client/src/pull-summary.js';

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { written, stream: { isTTY, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream };
}

const window = { month: '2025-03', from: '2025-03-01', to: '2025-03-31' };
const events: PullEvent[] = [
  { kind: 'window-start', window, index: 2, count: 12 },
  { kind: 'progress', rows: 1500, bytes: 3 * 1024 * 1024 },
  { kind: 'retry', why: '503 EXPORTS_BUSY', waitMs: 1500 },
];
const failedEntry = { window: '2025-04', from: '2025-04-01', to: '2025-04-30', status: 'failed' as const, rows: 0, bytes: 0, files: [], requestIds: [], error: '400 X', finishedAt: '' };
const outcome = (label: string, status: WindowOutcome['status']): WindowOutcome => ({ label, from: `${label}-01`, to: `${label}-28`, status, rows: 1, bytes: 1, files: [] });
const summary: PullSummary = {
  via: 'windows', windows: 12, pulled: 11, unchanged: 0, moving: [], failed: [failedEntry], rows: 1500, bytes: 3 * 1024 * 1024, files: ['a'],
  outcomes: [outcome('2025-03', 'pulled'), { ...outcome('2025-04', 'failed'), error: '400 X' }],
};

describe('the progress reporter', () => {
  it('shows windows, rows, bytes and rate on one rewritten line when stderr is a terminal', () => {
    let now = 0;
    const { written, stream: tty } = stream(true);
    const report = reporter(tty, () => now);
    now = 2000;
    for (const event of events) report.observe(event);
    expect(written.join('')).toContain('\r\x1b[2K[3/12] 2025-03 · 1,500 rows · 3.0 MiB · 750 rows/s');
    expect(written.join('')).toContain('2025-03: 503 EXPORTS_BUSY, retrying in 1.5 s\n');
  });

  it('writes only whole lines when stderr is not a terminal (a log file): retries, failures and the summary', () => {
    const { written, stream: file } = stream(false);
    const report = reporter(file, () => 0);
    for (const event of events) report.observe(event);
    report.finish(summary, '/data/out');
    const text = written.join('');
    expect(text).not.toContain('\r');
    expect(text).not.toContain('rows/s');
    expect(text.split('\n').filter(Boolean)).toEqual([
      '2025-03: 503 EXPORTS_BUSY, retrying in 1.5 s',
      'not complete: 12 windows (11 pulled, 0 unchanged), 1,500 rows, 3.0 MiB in 1 file in 0.0 s → /data/out',
      'pulled: 2025-03',
      'failed windows: 2025-04 (run the same command again to retry them)',
    ]);
  });

  it('counts one of a thing in the singular, and names the windows pulled, still being written and unchanged, with the watermark', () => {
    const { written, stream: file } = stream(false);
    reporter(file, () => 0).finish({ ...summary, windows: 1, pulled: 1, failed: [], rows: 1, files: ['a'], outcomes: [outcome('2025-03', 'pulled')] }, '/data/out');
    const months = ['2025-11', '2025-12', '2026-01', '2026-02', '2026-04'];
    reporter(file, () => 0).finish({
      ...summary, windows: 7, pulled: 2, unchanged: 5, failed: [], moving: ['2026-11'], rows: 1, files: ['a'], watermark: '2026-11-28T01:00:00.000Z',
      outcomes: [...months.map((month) => outcome(month, 'unchanged')), outcome('2026-10', 'pulled'), outcome('2026-11', 'moving')],
    }, '/data/out');
    expect(written.join('').split('\n').filter(Boolean)).toEqual([
      'complete: 1 window (1 pulled, 0 unchanged), 1 row, 3.0 MiB in 1 file in 0.0 s → /data/out',
      'pulled: 2025-03',
      'complete: 7 windows (2 pulled, 5 unchanged), 1 row, 3.0 MiB in 1 file in 0.0 s → /data/out',
      'watermark: 2026-11-28T01:00:00.000Z (every write before it is in the folder)',
      'pulled: 2026-10',
      'still being written: 2026-11 (kept as pulled; the next run checks it again)',
      'unchanged: 2025-11..2026-02, 2026-04',
    ]);
  });

  it('writes month labels in a row as ranges, and parts of months as they are', () => {
    expect(labelRanges(['2025-12', '2026-01', '2026-03', '2026-04-01_2026-04-15', '2026-05'])).toBe('2025-12..2026-01, 2026-03, 2026-04-01_2026-04-15, 2026-05');
    expect(labelRanges([])).toBe('');
  });

  it('prints text from the server without control characters: no escape sequence, no forged line', () => {
    const { written, stream: tty } = stream(true);
    const report = reporter(tty, () => 0);
    report.observe({ kind: 'window-failed', entry: { ...failedEntry, error: '400 X: \x1b[2J\x1b[H\rpulled: 12 windows\n\u202eevil' } });
    const text = written.join('').replaceAll('\r\x1b[2K', '');
    expect(text).toBe('2025-04 failed: 400 X:  [2J [H pulled: 12 windows evil\n');
  });

  it('says when the range grew since the folder\'s token, and the delta goes on from it', () => {
    const { written, stream: file } = stream(false);
    const report = reporter(file, () => 0);
    report.observe({ kind: 'delta-start', start: 'token', grownFrom: { from: '2025-01-01', to: '2026-11-29' } });
    report.observe({ kind: 'delta-start', start: 'token' });
    expect(written.join('').split('\n').filter(Boolean)).toEqual(["the range grew since the folder's token (2025-01-01..2026-11-29): the days added come whole in the delta"]);
  });
});
