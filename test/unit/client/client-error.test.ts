import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FolderBusy, MANIFEST_FILE, ManifestError, OptionsError, PullStopped, readSettings, SettingsError, SummaryClientError, TokenError, monthWindows } from '../../../client/src/index.js';
import { openManifest } from '../../../client/src/manifest.js';

/** What `run` throws, or a failure when it throws nothing. */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('the client\'s stops', () => {
  it('are one class a library caller can catch, each still its own kind with its own name and code', () => {
    const kinds = [SettingsError, OptionsError, ManifestError, FolderBusy, TokenError, PullStopped];
    const codes = kinds.map((kind) => {
      const error = new kind('what to do');
      expect([kind.name, error instanceof SummaryClientError, error.name]).toEqual([kind.name, true, kind.name]);
      expect(error.code).toMatch(/^[A-Z]+(?:_[A-Z]+)+$/);
      return error.code;
    });
    // One code per kind: a caller that switches on it never confuses two.
    expect(new Set(codes).size).toBe(kinds.length);
  });

  it('are what the client throws for options it cannot pull (a range backwards, not a day)', () => {
    expect(thrown(() => monthWindows('2025-03-02', '2025-03-01'))).toMatchObject({ name: 'OptionsError', code: 'OPTIONS_INVALID' });
    expect(thrown(() => monthWindows('2025-02-30', '2025-03-01'))).toBeInstanceOf(SummaryClientError);
  });

  it('are what the client throws for a setting and for a folder it cannot trust', () => {
    expect(thrown(() => readSettings({}))).toBeInstanceOf(SummaryClientError);
    const dir = mkdtempSync(join(tmpdir(), 'client-error-'));
    try {
      writeFileSync(join(dir, MANIFEST_FILE), '{ not json');
      expect(thrown(() => openManifest(dir, {} as never))).toBeInstanceOf(SummaryClientError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
