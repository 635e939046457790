import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { BUILD_ID, CREATED_BY, SERVICE_VERSION } from '../../../../shared/output/parquet/created-by.js';

describe('created_by', () => {
  it('carries the version package.json declares', () => {
    const { version } = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(SERVICE_VERSION).toBe(version);
  });

  it('says `dev` for a build outside the deploy artifact, in the form parquet-mr parses', () => {
    expect(BUILD_ID).toBe('dev');
    expect(CREATED_BY).toBe(`summary-data-service version ${SERVICE_VERSION} (build dev)`);
  });
});
