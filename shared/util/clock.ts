/**
 * The service's one clock: milliseconds since the epoch. Every part that reads the time (the
 * token check, the credentials cache, the cursor breaker, ETags, generatedAt) takes the same
 * clock from SummaryDeps, so a test that moves it moves them all.
 */
export type Clock = () => number;

/** The machine's clock. */
export const SYSTEM_CLOCK: Clock = () => Date.now();
