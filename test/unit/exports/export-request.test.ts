import { describe, expect, it } from '@jest/globals';
import { buildAllowlist } from '../../../shared/access/allowlist.js';
import { DATAPOINTS } from '../../../shared/access/datapoints.js';
import { ApiError } from '../../../shared/errors/api-error.js';
import { parseCalendarDate } from '../../../shared/filters/calendar-date.js';
import { filterMembers } from '../../../shared/filters/filter-members.js';
import { CONTRACTS } from '../../../shared/model/contracts.js';
import { parseExportRequest, windowQuery } from '../../../shared/exports/export-request.js';
import { monthsTouched, monthWindows } from '../../../shared/exports/export-windows.js';

const view = buildAllowlist(DATAPOINTS).view(CONTRACTS, ['Data.Read']);
const context = { query: new URLSearchParams(), view, members: filterMembers(CONTRACTS), maxPageSize: 1000, maxMonths: 36 };
const day = (text: string) => parseCalendarDate(text)!;

function refused(body: unknown, query = new URLSearchParams()): ApiError {
  try {
    parseExportRequest({ ...context, body, query });
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('the windows of an export job', () => {
  it('are the calendar months of the range, the first and last cut to it', () => {
    expect(monthWindows(day('2024-02-10'), day('2024-04-05'))).toEqual([
      { label: '2024-02', from: '2024-02-10', to: '2024-02-29' },
      { label: '2024-03', from: '2024-03-01', to: '2024-03-31' },
      { label: '2024-04', from: '2024-04-01', to: '2024-04-05' },
    ]);
    expect(monthWindows(day('2025-12-31'), day('2026-01-01'))).toEqual([
      { label: '2025-12', from: '2025-12-31', to: '2025-12-31' },
      { label: '2026-01', from: '2026-01-01', to: '2026-01-01' },
    ]);
    expect(monthWindows(day('2025-03-03'), day('2025-03-03'))).toEqual([{ label: '2025-03', from: '2025-03-03', to: '2025-03-03' }]);
  });

  it('touch as many months as they are, whatever the days', () => {
    expect(monthsTouched(day('2024-01-31'), day('2026-12-01'))).toBe(36);
    expect(monthWindows(day('2024-01-31'), day('2026-12-01'))).toHaveLength(36);
    expect(monthsTouched(day('2025-05-01'), day('2025-05-31'))).toBe(1);
  });
});

describe('a kick-off', () => {
  it('is the summary operation\'s request over months: each window\'s query is that operation\'s for the month', () => {
    const asked = parseExportRequest({ ...context, body: { createdFrom: '2025-01-15', createdTo: '2025-03-10', contractWorkspaceID: 'CW1234', order: 'desc' } });
    expect(asked.range).toEqual({ from: 'createdFrom', to: 'createdTo' });
    expect(asked.windows.map((window) => window.label)).toEqual(['2025-01', '2025-02', '2025-03']);
    const query = windowQuery(asked, asked.windows[1]!, context);
    expect(query.filters.map((filter) => (filter.kind === 'dayRange' ? [filter.field.name, filter.from, filter.to] : [filter.field.name, filter.value]))).toEqual([
      ['contractWorkspaceID', 'CW1234'], ['createdDate', '2025-02-01', '2025-02-28'],
    ]);
    expect([query.order, query.given.createdFrom]).toEqual(['desc', '2025-02-01']);
  });

  it('keeps the ETags of its windows and leaves out labels outside the range', () => {
    const asked = parseExportRequest({ ...context, body: { updatedFrom: '2025-01-01', updatedTo: '2025-02-28', ifNoneMatch: { '2025-01': 'W/"a"', '2024-12': 'W/"b"', '2025-02': '"c", W/"d"' } } });
    expect(asked.range).toEqual({ from: 'updatedFrom', to: 'updatedTo' });
    expect(asked.ifNoneMatch).toEqual({ '2025-01': 'W/"a"', '2025-02': '"c", W/"d"' });
    expect(asked.given).not.toHaveProperty('ifNoneMatch');
  });

  it('takes a manifest\'s windows as they are for ifNoneMatch: their labels and ETags, the others\' members ignored, windows without an ETag left out', () => {
    const windows = [
      { label: '2025-01', from: '2025-01-01', to: '2025-01-31', status: 'exported', etag: 'W/"a"', records: 3, files: [{ table: 'contracts' }] },
      { label: '2025-02', from: '2025-02-01', to: '2025-02-28', status: 'failed', problem: { code: 'EXPORT_WINDOW_FAILED' } },
      { label: '2024-12', status: 'unchanged', etag: 'W/"b"' },
    ];
    const asked = parseExportRequest({ ...context, body: { createdFrom: '2025-01-01', createdTo: '2025-02-28', ifNoneMatch: windows } });
    expect(asked.ifNoneMatch).toEqual({ '2025-01': 'W/"a"' });
    for (const wrong of [['W/"a"'], [{ etag: 'W/"a"' }], [{ label: '2025-01', etag: 'not an etag' }], [{ label: 'January', etag: 'W/"a"' }], 'W/"a"']) {
      expect(refused({ createdFrom: '2025-01-01', createdTo: '2025-02-28', ifNoneMatch: wrong }).errors.map((problem) => problem.code)).toEqual(['INVALID_PRECONDITION']);
    }
  });

  it('is refused with every problem at once, in the summary operation\'s codes', () => {
    const error = refused({ createdFrom: '2025-01-01', createdTo: '2028-01-01', page: 2, colour: 'red', ifNoneMatch: { '2025-13': 'W/"x"', '2025-01': '*' } });
    expect(error.errors.map((problem) => [problem.member, problem.code])).toEqual([
      ['page', 'PAGINATION_NOT_ALLOWED'],
      ['colour', 'UNKNOWN_FILTER'],
      ['createdTo', 'DATE_RANGE_TOO_LONG'],
      ['ifNoneMatch.2025-13', 'INVALID_PRECONDITION'],
      ['ifNoneMatch.2025-01', 'INVALID_PRECONDITION'],
    ]);
    // The members are checked once the range holds: the unknown one is its own 400.
    expect(refused({ createdFrom: '2025-01-01', createdTo: '2025-02-01', colour: 'red' }).code).toBe('UNKNOWN_FILTER');
    expect(refused({ createdFrom: '2025-01-01', createdTo: '2025-02-01' }, new URLSearchParams('contractWorkspaceID=CW1234')).errors[0]).toMatchObject({ member: 'contractWorkspaceID', code: 'INVALID_FILTER' });
    expect(refused({ createdFrom: '2025-01-01', createdTo: '2025-02-01', code: 'x' }).code).toBe('UNKNOWN_FILTER');
    expect(refused(undefined).code).toBe('INVALID_BODY');
    expect(refused({ createdFrom: 20250101, createdTo: '2025-02-01' }).code).toBe('INVALID_DATE');
  });
});

describe('a kick-off body with members that reach for a prototype or repeat a window', () => {
  const range = { createdFrom: '2025-01-01', createdTo: '2025-03-31' };

  it.each(['__proto__', 'constructor', 'toString'])('refuses %s as the summary operation does: 400 UNKNOWN_FILTER, nothing taken from it', (name) => {
    // As readJsonBody hands it over: JSON.parse makes __proto__ an own member.
    const body = JSON.parse(`{"createdFrom":"2025-01-01","${name}":{"createdTo":"2025-12-31"}}`) as Record<string, unknown>;
    const error = refused(body);
    expect([error.status, error.errors.map((problem) => [problem.member, problem.code])]).toEqual([400, expect.arrayContaining([[name, 'UNKNOWN_FILTER']])]);
    // The value inside it was never read as the range's end.
    expect(error.errors.map((problem) => problem.code)).toContain('DATE_RANGE_INCOMPLETE');
  });

  it('refuses a window given twice in a manifest\'s windows: 400 INVALID_PRECONDITION', () => {
    const error = refused({ ...range, ifNoneMatch: [{ label: '2025-01', etag: 'W/"a"' }, { label: '2025-01', etag: 'W/"b"' }] });
    expect([error.status, error.errors.map((problem) => [problem.member, problem.code])]).toEqual([400, [['ifNoneMatch.2025-01', 'INVALID_PRECONDITION']]]);
  });
});
