import { describe, expect, it } from '@jest/globals';
import { hostQueueSettings } from '../../../dev/trigger-host.js';

describe("the local trigger host's queue settings", () => {
  it('reads host.json as the Functions host does: time spans with fractions of a second, defaults for what is left out', () => {
    expect(hostQueueSettings({ extensions: { queues: { maxPollingInterval: '00:00:00.500', visibilityTimeout: '00:01:05', batchSize: 2, maxDequeueCount: 5 } } }))
      .toEqual({ maxPollingIntervalMs: 500, visibilityTimeoutSeconds: 65, batchSize: 2, maxDequeueCount: 5 });
    expect(hostQueueSettings({})).toEqual({ maxPollingIntervalMs: 60_000, visibilityTimeoutSeconds: 0, batchSize: 16, maxDequeueCount: 5 });
    for (const wrong of ['500ms', '00:75:00', '00:00:60', '24:00:00']) expect(() => hostQueueSettings({ extensions: { queues: { maxPollingInterval: wrong } } })).toThrow(/is not a time span/);
  });

  it("is what this project's host.json says: an idle queue polled at least every half second", () => {
    expect(hostQueueSettings().maxPollingIntervalMs).toBe(500);
  });
});
