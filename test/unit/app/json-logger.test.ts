import { describe, expect, it } from '@jest/globals';
import { createJsonLogger } from '../../../shared/app/json-logger.js';
import type { RequestLogEntry } from '../../../shared/telemetry/request-log-entry.js';

const ENTRY: RequestLogEntry = {
  requestId: 'req-"1"', clientRequestId: null, operation: 'contracts.summary', clientId: 'contoso-full', dataTenant: 'contoso',
  status: 200, code: null, reason: null, durationMs: 1.5, records: 25, storeDocuments: 25, requestCharge: 2.5, bytes: 10_000,
};

describe('the JSON log line', () => {
  it('is the entry after its level, as one JSON object, with or without the malformed-data part', () => {
    for (const entry of [ENTRY, { ...ENTRY, malformed: { recordsLeftOut: 1, linesLeftOut: 0, nulled: 2, where: [{ record: 'CT-1', field: 'title' }] } }]) {
      const lines: string[] = [];
      createJsonLogger((line) => lines.push(line), () => {}).request(entry);
      expect(lines).toEqual([JSON.stringify({ level: 'info', ...entry })]);
      expect(Object.keys(JSON.parse(lines[0]!) as object)[0]).toBe('level');
    }
  });

  it('writes warnings and faults to the error sink, faults as type and stack frames only', () => {
    const errors: string[] = [];
    const logger = createJsonLogger(() => {}, (line) => errors.push(line));
    logger.warning('r1', 'page cursor put failed (timeout)');
    logger.fault('r2', new TypeError('secret value 123'));
    expect(JSON.parse(errors[0]!)).toEqual({ level: 'warn', requestId: 'r1', warning: 'page cursor put failed (timeout)' });
    expect(JSON.parse(errors[1]!)).toMatchObject({ level: 'error', requestId: 'r2', error: 'TypeError' });
    expect(errors[1]).not.toContain('secret value');
  });
});
