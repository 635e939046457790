import { describe, expect, it } from '@jest/globals';
import { formatDeltaToken, newDeltaToken, parseDeltaToken } from '../../../shared/delta/delta-token.js';
import { resolveToken } from '../../../shared/delta/resolve-token.js';
import { stateBlob, type DeltaBlobs } from '../../../shared/delta/delta-blobs.js';
import { decodeState, encodeState, type StateBinding } from '../../../shared/delta/state-codec.js';
import type { DeltaState } from '../../../shared/delta/delta-state.js';
import { addedDays, type FilterKey } from '../../../shared/delta/wider-range.js';

// A token's outcomes before any store read of records: the state kept in a map behind the
// DeltaBlobs seam (the blob container's stand-in; the seam's blob side is tested against Azurite).
const DAY_S = 86_400;
const binding: StateBinding = { tenant: 'contoso', clientId: 'client-a', resource: 'contracts', view: 'view-1', filters: 'filters-1' };
const state: DeltaState = { since: 1_700_000_000, records: new Map([['CON-1', { key: '2025-03-01T00:00:00.000Z', hash: 'h1' }], ['CON-2', { key: undefined, hash: 'h2' }]]) };

function keptStates(): DeltaBlobs & { kept: Map<string, Uint8Array> } {
  const kept = new Map<string, Uint8Array>();
  return { kept, get: async (name) => kept.get(name), put: async (name, bytes) => void kept.set(name, bytes) };
}

describe('a delta token', () => {
  it('has one form, and anything else is no token', () => {
    const token = newDeltaToken(Date.parse('2026-11-28T00:00:00Z'));
    expect(parseDeltaToken(formatDeltaToken(token))).toEqual(token);
    for (const text of ['', 'd1', `d2.${token.stateId}.${token.issued}`, `d1.${token.stateId.toUpperCase()}.${token.issued}`, `d1.${token.stateId}.0${token.issued}`, `d1.${token.stateId}.${token.issued} `, `d1.${token.stateId.slice(1)}.${token.issued}`]) {
      expect([text, parseDeltaToken(text)]).toEqual([text, undefined]);
    }
    expect(newDeltaToken(0).stateId).not.toBe(newDeltaToken(0).stateId);
  });

  it('keeps its state whole through the codec, and no bytes but a state decode', async () => {
    const decoded = await decodeState(await encodeState({ binding, issued: 1_700_000_100, state }));
    expect(decoded).toEqual({ binding, issued: 1_700_000_100, state });
    expect(await decodeState(new Uint8Array([1, 2, 3]))).toBeUndefined();
    expect(await decodeState((await encodeState({ binding, issued: 1, state })).subarray(0, 20))).toBeUndefined();
  });

  it('keeps its records in key order, those without a key last, whatever order they were given in', async () => {
    const entries: [string, { key: string | undefined; hash: string }][] = [
      ['CON-9', { key: undefined, hash: 'h9' }], ['CON-3', { key: '2025-03-02', hash: 'h3' }],
      ['CON-1', { key: '2025-03-01T10:00:00.000Z', hash: 'h1' }], ['CON-2', { key: '2025-03-01', hash: 'h2' }],
    ];
    const decoded = (await decodeState(await encodeState({ binding, issued: 1, state: { since: 5, records: new Map(entries) } })))!;
    expect([...decoded.state.records.keys()]).toEqual(['CON-2', 'CON-1', 'CON-3', 'CON-9']);
    expect(decoded.state.records).toEqual(new Map(entries));
  });

  it('continues from its state for the same tenant, client, resource, view and filters; else says why not, never whether it exists', async () => {
    const now = Date.parse('2026-11-28T00:00:00Z');
    const states = keptStates();
    const token = newDeltaToken(now);
    await states.put(stateBlob('contoso', token.stateId), await encodeState({ binding, issued: token.issued, state }));
    const resolve = (text: string | undefined, overrides: Partial<StateBinding> = {}, at = now) => resolveToken({ token: text, binding: { ...binding, ...overrides }, filterKeys: [], now: at, days: 30, blobs: states });
    const text = formatDeltaToken(token);
    expect(await resolve(text)).toEqual({ kind: 'state', state });
    expect(await resolve(undefined)).toEqual({ kind: 'state', state: { since: 0, records: new Map() } });
    expect(await resolve('not a token')).toEqual({ kind: 'malformed' });
    // Another tenant's, another client's, another resource's, an unknown id: one outcome.
    const notFound = { kind: 'notFound' };
    expect(await resolve(text, { tenant: 'fabrikam' })).toEqual(notFound);
    expect(await resolve(text, { clientId: 'client-b' })).toEqual(notFound);
    expect(await resolve(text, { resource: 'invoices' })).toEqual(notFound);
    expect(await resolve(formatDeltaToken({ ...token, stateId: 'f'.repeat(32) }))).toEqual(notFound);
    states.kept.set(stateBlob('contoso', token.stateId), new Uint8Array([0x1f, 0x8b, 0, 0]));
    expect(await resolve(text)).toEqual(notFound);
    await states.put(stateBlob('contoso', token.stateId), await encodeState({ binding, issued: token.issued, state }));
    // A token whose time was altered (to live longer) names no state.
    expect(await resolve(formatDeltaToken({ ...token, issued: token.issued + 1 }))).toEqual(notFound);
    expect(await resolve(text, { view: 'view-2' })).toEqual({ kind: 'viewChanged' });
    expect(await resolve(text, { filters: 'filters-2' })).toEqual({ kind: 'filtersChanged' });
    // Its life is told by the token itself: past it, expired whatever is still kept.
    expect(await resolve(text, {}, now + 30 * DAY_S * 1000)).toEqual({ kind: 'state', state });
    expect(await resolve(text, {}, now + (30 * DAY_S + 1) * 1000)).toEqual({ kind: 'expired' });
  });

  it('goes on to a wider date range of the same filters; any other change of them is other filters', async () => {
    const now = Date.parse('2026-11-28T00:00:00Z');
    const states = keptStates();
    const token = newDeltaToken(now);
    const kept: FilterKey[] = [['status', 'Published'], ['createdDate', '2025-01-01', '2025-03-10']];
    await states.put(stateBlob('contoso', token.stateId), await encodeState({ binding, issued: token.issued, state, filterKeys: kept }));
    const resolve = (filterKeys: FilterKey[], overrides: Partial<StateBinding> = { filters: 'filters-2' }) => resolveToken({ token: formatDeltaToken(token), binding: { ...binding, ...overrides }, filterKeys, now, days: 30, blobs: states });
    expect(await resolve(kept, {})).toEqual({ kind: 'state', state });
    expect(await resolve([['status', 'Published'], ['createdDate', '2025-01-01', '2025-04-02']])).toEqual({ kind: 'state', state, added: [{ field: 'createdDate', from: '2025-03-11', to: '2025-04-02' }] });
    expect(await resolve([['status', 'Published'], ['createdDate', '0001-01-01', '9999-12-31']])).toEqual({ kind: 'state', state, added: [{ field: 'createdDate', from: '0001-01-01', to: '2024-12-31' }, { field: 'createdDate', from: '2025-03-11', to: '9999-12-31' }] });
    // The view is checked as ever.
    expect(await resolve([['status', 'Published'], ['createdDate', '2025-01-01', '2025-04-02']], { filters: 'filters-2', view: 'view-2' })).toEqual({ kind: 'viewChanged' });
    for (const other of [
      [['status', 'Published'], ['createdDate', '2025-01-02', '2025-04-02']],
      [['status', 'Published'], ['createdDate', '2025-01-01', '2025-03-09']],
      [['status', 'Draft'], ['createdDate', '2025-01-01', '2025-04-02']],
      [['status', 'Published'], ['updatedDate', '2025-01-01', '2025-04-02']],
      [['createdDate', '2025-01-01', '2025-04-02']],
      [['status', 'Published'], ['createdDate', '2025-01-01', '2025-04-02'], ['updatedDate', '2025-01-01', '2025-04-02']],
    ] as FilterKey[][]) expect([other, await resolve(other)]).toEqual([other, { kind: 'filtersChanged' }]);
    // A state kept before states kept their filters goes on to no other.
    await states.put(stateBlob('contoso', token.stateId), await encodeState({ binding, issued: token.issued, state }));
    expect(await resolve([['status', 'Published'], ['createdDate', '2025-01-01', '2025-04-02']])).toEqual({ kind: 'filtersChanged' });
  });

  it('adds the days of a wider range across months, years and the ends of the calendar', () => {
    const range = (from: string, to: string): FilterKey[] => [['createdDate', from, to]];
    expect(addedDays(range('2024-03-01', '2024-03-31'), range('2024-02-29', '2024-04-01'))).toEqual([{ field: 'createdDate', from: '2024-02-29', to: '2024-02-29' }, { field: 'createdDate', from: '2024-04-01', to: '2024-04-01' }]);
    expect(addedDays(range('2025-01-01', '2025-12-31'), range('2024-12-31', '2026-01-01'))).toEqual([{ field: 'createdDate', from: '2024-12-31', to: '2024-12-31' }, { field: 'createdDate', from: '2026-01-01', to: '2026-01-01' }]);
    expect(addedDays(range('0001-01-01', '9999-12-31'), range('0001-01-01', '9999-12-31'))).toEqual([]);
    expect(addedDays([['status', 'Published']], [['status', 'Published ']])).toBeUndefined();
  });
});
