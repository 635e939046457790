import { describe, expect, it } from '@jest/globals';
import { call, tokenResponse, type Problem } from '../support/stack.js';

// The three credentials, over HTTP through the local gateway. Every case answers problem+json
// with X-Request-ID, and a missing credential is answered before the request is looked at.
async function problem(response: Response): Promise<Problem> {
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(response.headers.get('x-request-id')).toBeTruthy();
  const body = (await response.json()) as Problem;
  expect(body.requestId).toBe(response.headers.get('x-request-id'));
  return body;
}

describe('credentials over HTTP', () => {
  it('answers a missing subscription key at the gateway with 401', async () => {
    const response = await call('contracts', { headers: { 'ocp-apim-subscription-key': undefined } });
    expect(response.status).toBe(401);
    expect((await problem(response)).code).toBe('INVALID_SUBSCRIPTION_KEY');
  });

  it('answers a wrong subscription key with 401', async () => {
    const response = await call('contracts', { headers: { 'ocp-apim-subscription-key': 'dev-subscription-key-9999' } });
    expect([response.status, (await problem(response)).code]).toEqual([401, 'INVALID_SUBSCRIPTION_KEY']);
  });

  it('answers a missing x-api-key with 401 INVALID_API_KEY before validating the body', async () => {
    const response = await call('contracts', { headers: { 'x-api-key': undefined }, rawBody: '{not json' });
    expect([response.status, (await problem(response)).code]).toEqual([401, 'INVALID_API_KEY']);
  });

  it('answers a missing token with 401 INVALID_TOKEN and a Bearer challenge, before validating the body', async () => {
    const response = await call('contracts', { headers: { authorization: undefined }, body: { bogus: true } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect((await problem(response)).code).toBe('INVALID_TOKEN');
  });

  it('refuses the id_token with 401 and error="invalid_token"', async () => {
    const { id_token } = await tokenResponse('contoso-full');
    const response = await call('contracts', { headers: { authorization: `Bearer ${id_token}` } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token", error_description="The access token is not issued for this API"');
    expect((await problem(response)).code).toBe('INVALID_TOKEN');
  });

  it('answers a client without Data.Read with 403 MISSING_ROLE', async () => {
    const response = await call('invoices', { as: 'contoso-norole' });
    expect([response.status, (await problem(response)).code]).toEqual([403, 'MISSING_ROLE']);
  });

  it('answers an unregistered client with 403 CLIENT_NOT_REGISTERED', async () => {
    const response = await call('invoices', { as: 'unregistered-app' });
    expect([response.status, (await problem(response)).code]).toEqual([403, 'CLIENT_NOT_REGISTERED']);
  });

  it('says nothing about the data to an unauthenticated caller', async () => {
    const response = await call('contracts', { headers: { 'x-api-key': 'dev-api-key-wrong-0000' }, body: { createdFrom: '2025-01-01', createdTo: '2025-01-31' } });
    const body = await problem(response);
    expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'requestId', 'status', 'title', 'type']);
  });
});
