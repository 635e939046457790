import type { CatchUp, DeltaFigures } from './delta-feed.js';
import { count, duration, times, type TableRow } from './table.js';

/** Targets of the delta feed: a spread night reads at most 2% of a full pull's documents in at most a quarter of its wall time; nothing changed reads none. */
const DOCUMENTS_SHARE = 0.02;
const WALL_SHARE = 0.25;
/** A nightly pull kept by the delta with nothing changed: at most this many requests (issue 52). */
const NOTHING_REQUESTS = 3;

/** The delta feed against today's month-by-month mirror and a full pull, measured in the same run. */
export function deltaRows(figures: DeltaFigures): TableRow[] {
  const { full } = figures;
  const blank = { throughput: '', p99: '', memory: '—' } as const;
  const what = (run: CatchUp) => `${run.requests} requests, ${count(run.rows)} rows; ${count(run.documents)} documents read`;
  const share = (run: CatchUp) => `documents ${((run.documents / full.documents) * 100).toFixed(2)}%, wall ${times(run.ms / full.ms)}`;
  const { changed } = figures;
  const night = `${count(changed.updated + changed.deleted + changed.created)} records (${(((changed.updated + changed.deleted + changed.created) / figures.records) * 100).toFixed(1)}%) changed over ${changed.months} months: ${changed.updated} updated (half leaving updatedDate), ${changed.deleted} deleted, ${changed.created} created today`;
  const row = (label: string, run: CatchUp, target?: { readonly documents: number; readonly wall?: number; readonly requests?: number }): TableRow => {
    const documents = run.documents / full.documents;
    const wall = run.ms / full.ms;
    const met = target !== undefined && documents <= target.documents && (target.wall === undefined || wall <= target.wall) && (target.requests === undefined || run.requests <= target.requests);
    const requests = target?.requests === undefined ? '' : `, ≤ ${target.requests} requests`;
    const goal = target === undefined ? 'informational' : target.documents === 0 ? `0 documents${requests}` : `≤ ${target.documents * 100}% documents${target.wall === undefined ? '' : `, ≤ ${times(target.wall)} wall`}${requests}`;
    return {
      measurement: `${count(figures.records)} contracts over two years, ${label}`,
      subject: what(run),
      time: duration(run.ms),
      ...blank,
      output: '',
      ratio: share(run),
      target: goal,
      standing: target === undefined ? 'info' : met ? 'met' : 'not met',
      ...(target === undefined ? {} : { verdict: `${label}: ${(documents * 100).toFixed(2)}% of a full pull's documents (target ${target.documents === 0 ? '0' : `≤ ${target.documents * 100}%`}), ${times(wall)} its wall time${target.wall === undefined ? '' : ` (target ≤ ${times(target.wall)})`}${target.requests === undefined ? '' : `, ${run.requests} requests (target ≤ ${target.requests})`}` }),
    };
  };
  return [
    { measurement: `${count(figures.records)} contracts over two years: full pull month by month into an empty folder (baseline: median of three)`, subject: what(full), time: duration(full.ms), ...blank, output: '', ratio: 'baseline', target: 'baseline', standing: 'info' },
    row('the first delta (no token): the whole view as Parquet', figures.first),
    row(`delta as Parquet after ${night} (median of three asks of the same token)`, figures.spread.parquet, { documents: DOCUMENTS_SHARE, wall: WALL_SHARE }),
    row('the same delta as JSON pages, followed to the last (median of three)', figures.spread.json),
    row('the same night through today\'s month-by-month mirror (summary-client pull)', figures.spread.mirror),
    row('delta when nothing changed', figures.nothing, { documents: 0 }),
    row('the same night through summary-client pull kept by the delta (Parquet, merged from its token)', figures.kept.spread, { documents: DOCUMENTS_SHARE, wall: WALL_SHARE }),
    row('summary-client pull kept by the delta when nothing changed', figures.kept.nothing, { documents: 0, requests: NOTHING_REQUESTS }),
    row('summary-client pull kept by the delta when nothing changed but its --to, moved on to the next month (the token goes on to the wider range)', figures.kept.moved, { documents: 0, requests: NOTHING_REQUESTS }),
    { ...row(`delta of a busy tenant: a record of a random month written every second (${figures.busy.writes} writes)`, figures.busy), output: 'every write before the delta began is in it or the next' },
  ];
}
