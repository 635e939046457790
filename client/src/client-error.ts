/**
 * A run stopped for a reason its user must act on: a setting, the folder (its manifest, another
 * run's lock) or an answer no window could change. Its message says what is wrong and what to do;
 * the CLI prints it and exits 2. A library caller catches this one class, not each kind.
 *
 * @example
 * try { await pull(api, options); } catch (error) {
 *   if (error instanceof SummaryClientError) console.error(error.message); else throw error;
 * }
 */
export class SummaryClientError extends Error {
  override readonly name: string = 'SummaryClientError';
}
