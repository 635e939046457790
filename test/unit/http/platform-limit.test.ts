import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { projectRoot } from '../../../dev/project-root.js';
import { READ_TIMEOUT_MS } from '../../../client/src/summary-api.js';
import { EXPORT_DEADLINE_MS, PLATFORM_HTTP_LIMIT_SECONDS } from '../../../shared/config/platform-limit.js';
import { createExportSlots, EXPORT_SLOTS } from '../../../shared/admission/export-slots.js';
import { WINDOW_DEADLINE_MS } from '../../../shared/exports/run-window.js';
import { findAll, parsePolicy } from '../../infra/policy-xml.js';

// The platform's limit on one HTTP call is written in four languages (TypeScript, host.json, the
// gateway's policy XML, the clients' bounds): each is read from its own file and held to the one fact.
const read = (file: string) => readFileSync(join(projectRoot(), file), 'utf8');

describe('the platform\'s time limit on one HTTP call', () => {
  const functionTimeoutSeconds = () => {
    const [hours, minutes, seconds] = (JSON.parse(read('host.json')) as { functionTimeout: string }).functionTimeout.split(':').map(Number) as [number, number, number];
    return hours * 3600 + minutes * 60 + seconds;
  };

  it('is host.json\'s functionTimeout', () => {
    expect(functionTimeoutSeconds()).toBe(PLATFORM_HTTP_LIMIT_SECONDS);
  });

  it('holds an export window\'s whole budget, slot wait and deadline, 30 s inside the functionTimeout of its worker', async () => {
    // A window never waits for a slot: with every slot of its tenant taken it is refused at once.
    const slots = createExportSlots(EXPORT_SLOTS);
    const held = await slots.acquire({ clientId: 'request', tenant: 't' });
    expect(held).toBeDefined();
    const waited = new Promise((resolve) => setTimeout(() => resolve('waited'), 0));
    await expect(Promise.race([slots.acquire({ clientId: 'window', tenant: 't', background: true }), waited])).resolves.toBeUndefined();
    expect(WINDOW_DEADLINE_MS + 30_000).toBeLessThanOrEqual(functionTimeoutSeconds() * 1000);
  });

  it('is every forward-request timeout of the gateway\'s policy', () => {
    const timeouts = findAll(parsePolicy(read('infra/policies/summary-api.xml')), 'forward-request').map((element) => Number(element.attributes.timeout));
    expect(timeouts.length).toBeGreaterThan(0);
    expect(new Set(timeouts)).toEqual(new Set([PLATFORM_HTTP_LIMIT_SECONDS]));
  });

  it('bounds the export\'s own deadline from above, and the clients\' silence bound from below', () => {
    expect(EXPORT_DEADLINE_MS).toBeLessThan(PLATFORM_HTTP_LIMIT_SECONDS * 1000);
    expect(READ_TIMEOUT_MS).toBeGreaterThan(PLATFORM_HTTP_LIMIT_SECONDS * 1000);
  });
});
