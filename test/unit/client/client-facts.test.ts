import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { projectRoot } from '../../../dev/project-root.js';
import { RETRIED_STATUSES } from '../../../client/src/answers.js';
import { FOOTER_SHARE, MAX_DECODED_RATIO, MIN_DECODED_LIMIT, MIN_FOOTER_LIMIT } from '../../../client/src/decoded-size.js';
import { MAX_ZIP_DIRECTORY_BYTES, MAX_ZIP_ENTRIES, MIN_BYTES_PER_CONTAINER } from '../../../client/src/document-shape.js';
import { DEFAULT_DEADLINE_MS, DEFAULT_RETRY } from '../../../client/src/retry.js';
import { DEFAULT_MAX_EXPORT_BYTES, ENTRA } from '../../../client/src/settings.js';
import { MAX_DOCUMENT_BYTES, READ_TIMEOUT_MS } from '../../../client/src/summary-api.js';
import { QUIET_WAIT_MS, SERVICE_QUIET_MS } from '../../../client/src/pull.js';
import { QUIET_SECONDS } from '../../../shared/output/result-etag.js';
import { DEFAULT_POLL_WAIT_MS, DOWNLOADS, MAX_POLL_WAIT_MS, MAX_STATUS_CALLS, MIN_POLL_WAIT_MS } from '../../../client/src/job-pass.js';
import { JOB_WAIT_SECONDS } from '../../../client/src/summary-api.js';
import { JOB_LOCATION } from '../../../client/src/export-job.js';
import { JOB_ID, MAX_STATUS_WAIT_SECONDS } from '../../../shared/model/export-operations.js';

// The pull client (TypeScript) and the Python loader restate the same policy: how often and how
// long they retry, how long they wait, what they take. This holds each Python constant equal to its
// TypeScript twin, read from the Python source (no interpreter needed), so neither drifts alone.
const python = (file: string) => readFileSync(join(projectRoot(), 'python', 'src', 'summary_client', file), 'utf8');

/** A module-level constant of a Python file: a string literal, or arithmetic on numbers (`2 * 1024**3`). */
function constant(source: string, name: string): number | string {
  const line = new RegExp(`^${name}(?:: [A-Za-z]+)? = (.+)$`, 'm').exec(source)?.[1]?.trim();
  if (line === undefined) throw new Error(`${name} is not a constant of the Python source`);
  const text = /^"([^"]*)"$/.exec(line);
  if (text) return text[1]!;
  const tuple = /^\(([0-9, ]+)\)$/.exec(line);
  if (tuple) return tuple[1]!.split(',').map((item) => item.trim()).filter(Boolean).join(',');
  if (!/^[0-9_.\s*+()]+$/.test(line)) throw new Error(`${name} = ${line} is not arithmetic on numbers`);
  return Function(`"use strict"; return (${line.replaceAll('_', '')});`)() as number;
}

describe('the facts the two clients share', () => {
  it.each([
    ['_transport.py', 'ATTEMPTS', DEFAULT_RETRY.attempts],
    ['_transport.py', 'MAX_WAIT_SECONDS', DEFAULT_RETRY.maxWaitMs / 1000],
    ['_transport.py', 'READ_TIMEOUT_SECONDS', READ_TIMEOUT_MS / 1000],
    ['_transport.py', 'MAX_DOCUMENT_BYTES', MAX_DOCUMENT_BYTES],
    ['_settings.py', 'DEFAULT_DEADLINE_SECONDS', DEFAULT_DEADLINE_MS / 1000],
    ['_settings.py', 'DEFAULT_MAX_EXPORT_BYTES', DEFAULT_MAX_EXPORT_BYTES],
    ['_settings.py', 'ENTRA', ENTRA],
    ['_bounds.py', 'MIN_DECODED_LIMIT', MIN_DECODED_LIMIT],
    ['_bounds.py', 'MAX_DECODED_RATIO', MAX_DECODED_RATIO],
    ['_bounds.py', 'MIN_FOOTER_LIMIT', MIN_FOOTER_LIMIT],
    ['_bounds.py', 'FOOTER_SHARE', FOOTER_SHARE],
    ['_transport.py', 'RETRIED_STATUSES', RETRIED_STATUSES.join(',')],
    ['_transport.py', 'MIN_BYTES_PER_CONTAINER', MIN_BYTES_PER_CONTAINER],
    ['_load.py', 'MAX_ZIP_ENTRIES', MAX_ZIP_ENTRIES],
    ['_load.py', 'MAX_ZIP_DIRECTORY_BYTES', MAX_ZIP_DIRECTORY_BYTES],
    ['_job.py', 'DOWNLOADS', DOWNLOADS],
    ['_job.py', 'JOB_WAIT_SECONDS', JOB_WAIT_SECONDS],
    ['_job.py', 'MAX_POLL_SECONDS', MAX_POLL_WAIT_MS / 1000],
    ['_job.py', 'DEFAULT_POLL_SECONDS', DEFAULT_POLL_WAIT_MS / 1000],
    ['_job.py', 'MIN_POLL_SECONDS', MIN_POLL_WAIT_MS / 1000],
    ['_job.py', 'MAX_STATUS_CALLS', MAX_STATUS_CALLS],
  ])('%s %s is the pull client\'s', (file, name, value) => {
    expect(constant(python(file), name)).toBe(value);
  });

  it('_job.py reads a job\'s id from its Location as the pull client does', () => {
    const pattern = /^_LOCATION = re\.compile\(r"(.+)"\)$/m.exec(python('_job.py'))?.[1];
    expect(pattern).toBe(JOB_LOCATION.source.replaceAll('\\/', '/'));
  });

  it('can tell them apart (the reader of the Python source is not blind)', () => {
    expect(constant('ATTEMPTS = 7\n', 'ATTEMPTS')).not.toBe(DEFAULT_RETRY.attempts);
    expect(constant('X = 2 * 1024**3\n', 'X')).toBe(2 * 1024 ** 3);
    expect(() => constant('X = os.environ["Y"]\n', 'X')).toThrow(/not arithmetic/);
  });
});

describe('the facts the pull client shares with the service', () => {
  it('waits out the service\'s quiet period (a result written to in it has an ETag no check matches) before a strict confirmation', () => {
    expect(SERVICE_QUIET_MS).toBe(QUIET_SECONDS * 1000);
    expect(QUIET_WAIT_MS).toBeGreaterThan(SERVICE_QUIET_MS);
  });

  it('asks a status call to wait (Prefer: wait) exactly as long as the service lets it', () => {
    expect(JOB_WAIT_SECONDS).toBe(MAX_STATUS_WAIT_SECONDS);
  });

  it('reads exactly the job ids the service makes (32 hex digits) from a Location', () => {
    const id = 'a'.repeat(32);
    expect(JOB_ID.test(id)).toBe(true);
    expect(JOB_LOCATION.exec(`../exports/${id}`)?.[1]).toBe(id);
    for (const other of ['a'.repeat(31), 'a'.repeat(33), 'A'.repeat(32)]) expect([other, JOB_ID.test(other), JOB_LOCATION.test(`../exports/${other}`)]).toEqual([other, false, false]);
  });
});
