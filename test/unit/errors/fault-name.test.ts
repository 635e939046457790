import { describe, expect, it } from '@jest/globals';
import { ApiError, faultName } from '../../../shared/errors/api-error.js';
import { storeFault } from '../../../shared/store/store-fault.js';

describe('faultName, for a warning in the log', () => {
  it('names a translated store fault by its code and reason, never by its message', () => {
    const throttled = storeFault(Object.assign(new Error('Request rate is large for container secret-tenant'), { code: 429 }), false);
    expect(faultName(throttled)).toBe('STORE_UNAVAILABLE (store 429)');
    expect(faultName(new ApiError('STORAGE_UNAVAILABLE', 'detail for the caller'))).toBe('STORAGE_UNAVAILABLE');
  });

  it('names another error by its name, and anything else as unknown', () => {
    expect(faultName(new TypeError('document abc of tenant x'))).toBe('TypeError');
    expect(faultName('a string')).toBe('unknown');
  });
});
