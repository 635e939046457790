import { describe, expect, it } from '@jest/globals';
import { ErrorResponse } from '@azure/cosmos';
import { storeErrorText } from '../../../shared/store/store-fault.js';

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
