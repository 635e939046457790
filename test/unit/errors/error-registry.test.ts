import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { ERROR_CODES } from '../../../shared/errors/error-codes.js';
import { ApiError } from '../../../shared/errors/api-error.js';
import { toProblem } from '../../../shared/errors/problem-response.js';

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

function documentedCodes(markdown: string): Map<string, number> {
  const rows = [...markdown.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)];
  return new Map(rows.map((row) => [row[1]!, Number(row[2])]));
}

describe('the error registry', () => {
  it.each(['docs/errors.md'])('matches the table in %s, code for code and status for status (the one table of them)', (path) => {
    const documented = documentedCodes(read(path));
    const registered = new Map(Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status]));
    expect(documented).toEqual(registered);
  });

  it('uses SCREAMING_SNAKE codes', () => {
    for (const code of Object.keys(ERROR_CODES)) expect(code).toMatch(/^[A-Z]+(_[A-Z]+)*$/);
  });

  it('maps an ApiError to a problem document without cause or stack', () => {
    const error = new ApiError('INVALID_DATE', 'bad date', { cause: new Error('secret detail'), errors: [{ member: 'createdFrom', code: 'INVALID_DATE', message: 'm' }] });
    const problem = toProblem(error, 'req-1');
    expect(problem).toEqual({
      type: 'https://summary-service.invalid/problems/invalid-date',
      title: ERROR_CODES.INVALID_DATE.title,
      status: 400,
      detail: 'bad date',
      code: 'INVALID_DATE',
      requestId: 'req-1',
      errors: [{ member: 'createdFrom', code: 'INVALID_DATE', message: 'm' }],
    });
    expect(JSON.stringify(problem)).not.toContain('secret detail');
  });
});
