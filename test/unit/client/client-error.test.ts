import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FolderBusy, MANIFEST_FILE, ManifestError, PullStopped, readSettings, SettingsError, SummaryClientError } from '../../../client/src/index.js';
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
  it('are one class a library caller can catch, each still its own kind with its own name', () => {
    for (const kind of [SettingsError, ManifestError, FolderBusy, PullStopped]) {
      const error = new kind('what to do');
      expect([kind.name, error instanceof SummaryClientError, error.name]).toEqual([kind.name, true, kind.name]);
    }
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
