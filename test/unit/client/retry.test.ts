import { describe, expect, it } from '@jest/globals';
import { DeadlinePassed, retryAfterMs, waitMs, withRetry } from '../../../client/src/retry.js';
import { Stalled } from '../../../client/src/summary-api.js';

const answer = (status: number, headers: Record<string, string> = {}, code?: string) => ({ response: new Response(null, { status, headers }), ...(code ? { error: { code } } : {}) });

describe('retries', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('7')).toBe(7000);
    expect(retryAfterMs('Mon, 23 Nov 2026 08:00:10 GMT', Date.parse('2026-11-23T08:00:00Z'))).toBe(10_000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });

  it('waits what the server asked plus at most a quarter of jitter, never past the bound', () => {
    const policy = { attempts: 5, maxWaitMs: 60_000, deadlineMs: 600_000 };
    expect(waitMs(1, 10_000, policy, () => 0)).toBe(10_000);
    expect(waitMs(1, 10_000, policy, () => 0.999)).toBeLessThanOrEqual(12_500);
    expect(waitMs(1, 600_000, policy, () => 0.5)).toBe(60_000);
    expect(waitMs(3, undefined, policy, () => 0)).toBe(4000);
  });

  it('retries 429 and 503 with the waits asked, then returns the answer that is not retried', async () => {
    const answers = [answer(503, { 'retry-after': '2' }, 'EXPORTS_BUSY'), answer(429, { 'retry-after': '1' }, 'RATE_LIMITED'), answer(200)];
    const waits: number[] = [];
    const reasons: string[] = [];
    const result = await withRetry(async () => answers.shift()!, { attempts: 6, maxWaitMs: 60_000, deadlineMs: 600_000 }, (why) => reasons.push(why), async (ms) => void waits.push(ms));
    expect(result.response.status).toBe(200);
    expect(reasons).toEqual(['503 EXPORTS_BUSY', '429 RATE_LIMITED']);
    expect(waits[0]).toBeGreaterThanOrEqual(2000);
    expect(waits[1]).toBeGreaterThanOrEqual(1000);
  });

  it('gives up after the attempts with the last answer, and never retries a 4xx that is not 429', async () => {
    let calls = 0;
    const busy = await withRetry(async () => (calls++, answer(503)), { attempts: 3, maxWaitMs: 1, deadlineMs: 600_000 }, () => {}, async () => {});
    expect([busy.response.status, calls]).toEqual([503, 3]);
    calls = 0;
    const refused = await withRetry(async () => (calls++, answer(400)), { attempts: 3, maxWaitMs: 1, deadlineMs: 600_000 }, () => {}, async () => {});
    expect([refused.response.status, calls]).toEqual([400, 1]);
  });

  it('retries network failures and rethrows the last one', async () => {
    let calls = 0;
    await expect(withRetry(async () => {
      calls++;
      throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    }, { attempts: 2, maxWaitMs: 1, deadlineMs: 600_000 }, () => {}, async () => {})).rejects.toThrow('fetch failed');
    expect(calls).toBe(2);
  });

  it('never comes back before Retry-After: a longer one than the bound ends the retries', async () => {
    let calls = 0;
    const result = await withRetry(async () => (calls++, answer(503, { 'retry-after': '120' }, 'EXPORTS_BUSY')), { attempts: 6, maxWaitMs: 60_000, deadlineMs: 600_000 }, () => {}, async () => {});
    expect([result.response.status, calls]).toEqual([503, 1]);
  });

  it('does not retry a failure that is not the network (no token, a bug)', async () => {
    let calls = 0;
    await expect(withRetry(async () => {
      calls++;
      throw new Error('no token');
    }, { attempts: 3, maxWaitMs: 1, deadlineMs: 600_000 }, () => {}, async () => {})).rejects.toThrow('no token');
    expect(calls).toBe(1);
  });

  it('reports a 500 at once: the service failed on this request, and asking again fails alike', async () => {
    let calls = 0;
    const failed = await withRetry(async () => (calls++, answer(500, {}, 'INTERNAL')), { attempts: 6, maxWaitMs: 1, deadlineMs: 600_000 }, () => {}, async () => {});
    expect([failed.response.status, calls]).toEqual([500, 1]);
  });

  it('retries a server that fell silent like one that never answered', async () => {
    let calls = 0;
    const result = await withRetry(async () => {
      if (++calls === 1) throw new Stalled(240_000);
      return answer(200);
    }, { attempts: 3, maxWaitMs: 1, deadlineMs: 600_000 }, () => {}, async () => {});
    expect([result.response.status, calls]).toEqual([200, 2]);
  });

  it('gives a request up at the deadline, attempts and waits included', async () => {
    const started = Date.now();
    await expect(withRetry((signal) => new Promise<ReturnType<typeof answer>>((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))), { attempts: 6, maxWaitMs: 1, deadlineMs: 200 }))
      .rejects.toThrow(new DeadlinePassed(200, 'no full answer'));
    expect(Date.now() - started).toBeLessThan(2000);
    // A wait that would end past the deadline is not waited: the last answer is the result.
    let calls = 0;
    const waits: number[] = [];
    const busy = await withRetry(async () => (calls++, answer(503, { 'retry-after': '2' })), { attempts: 6, maxWaitMs: 60_000, deadlineMs: 1500 }, () => {}, async (ms) => void waits.push(ms));
    expect([busy.response.status, calls, waits]).toEqual([503, 1, []]);
  });

  it('ends at once when the run stops it, in a request or in a wait, with the stop\'s reason', async () => {
    const ended = new Error('the run ended');
    // In a request: its signal fires, and the call ends with the stop's reason, not a deadline.
    const inRequest = new AbortController();
    const pending = withRetry((signal) => new Promise<ReturnType<typeof answer>>((_resolve, reject) => signal.addEventListener('abort', () => reject(new TypeError('aborted')))), { attempts: 6, maxWaitMs: 60_000, deadlineMs: 600_000 }, () => {}, undefined, inRequest.signal);
    inRequest.abort(ended);
    await expect(pending).rejects.toBe(ended);
    // In a wait that would last a minute: not waited out.
    const inWait = new AbortController();
    let calls = 0;
    const started = Date.now();
    const waiting = withRetry(async () => (calls++, answer(503, { 'retry-after': '60' })), { attempts: 6, maxWaitMs: 60_000, deadlineMs: 600_000 }, () => inWait.abort(ended), () => new Promise(() => {}), inWait.signal);
    await expect(waiting).rejects.toBe(ended);
    expect([calls, Date.now() - started < 2000]).toEqual([1, true]);
    // Stopped before it began: nothing is sent.
    await expect(withRetry(async () => (calls++, answer(200)), { attempts: 1, maxWaitMs: 1, deadlineMs: 1000 }, () => {}, undefined, AbortSignal.abort(ended))).rejects.toBe(ended);
    expect(calls).toBe(1);
  });
});
