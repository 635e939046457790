import { describe, expect, it } from '@jest/globals';
import { ErrorResponse } from '@azure/cosmos';
import { ApiError } from '../../../shared/errors/api-error.js';
import { storeErrorText, storeFault } from '../../../shared/store/store-fault.js';

// The SDK builds an ErrorResponse from the body's `message`; a server that sends an object there
// made `npm run record` print "[object Object]". The text a person reads names the status and what the store said.
describe('storeErrorText', () => {
  it('says the status and the store\'s message when the SDK\'s message is an object', () => {
    const error = new ErrorResponse({ code: 'BadRequest', detail: 'id too long' } as unknown as string);
    error.code = 400;
    error.body = { code: 'BadRequest', message: { code: 'BadRequest', detail: 'id too long' } } as never;
    expect(error.message).toBe('[object Object]');
    expect(storeErrorText(error)).toBe('400: {"code":"BadRequest","detail":"id too long"}');
  });

  it('keeps a plain message, its first line only, and says what anything else is', () => {
    const error = new ErrorResponse('Entity with the specified id already exists in the system.\nActivityId: 1');
    error.code = 409;
    expect(storeErrorText(error)).toBe('409: Entity with the specified id already exists in the system.');
    expect(storeErrorText(new TypeError('fetch failed'))).toBe('fetch failed');
    expect(storeErrorText('down')).toBe('down');
  });
});

// The log line of a 503 says why the store was unavailable, never what the store said.
describe('storeFault', () => {
  it('turns timeouts, throttling, outages and network errors into 503 STORE_UNAVAILABLE with a reason for the log line', () => {
    const reasonOf = (error: unknown, timedOut = false) => {
      const fault = storeFault(error, timedOut);
      return fault instanceof ApiError ? [fault.code, fault.reason] : fault;
    };
    const throttled = Object.assign(new ErrorResponse('Request rate is large'), { code: 429, retryAfterInMs: 1500 });
    expect(reasonOf(throttled)).toEqual(['STORE_UNAVAILABLE', 'store 429']);
    expect((storeFault(throttled, false) as ApiError).headers['Retry-After']).toBe('2');
    expect(reasonOf(new Error('an aggregate gave no value within the deadline'), true)).toEqual(['STORE_UNAVAILABLE', 'deadline']);
    expect(reasonOf(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toEqual(['STORE_UNAVAILABLE', 'network ECONNRESET']);
    expect(reasonOf(Object.assign(new Error('key=secret'), { code: 'key=secret' }))).toEqual(['STORE_UNAVAILABLE', 'network']);
  });

  it('leaves a query the store refuses what it is: a bug, not an outage', () => {
    const refused = Object.assign(new ErrorResponse('Syntax error'), { code: 400 });
    expect(storeFault(refused, false)).toBe(refused);
  });
});
