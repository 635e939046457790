/**
 * What the CLI tells a person: a progress line on stderr while it is a terminal (windows, rows,
 * bytes, rate), the retries and failures as they happen, a summary at the end that names the
 * windows pulled, still being written and unchanged (terminal or log file alike), and the folder's
 * watermark. Never data, never a secret: the events carry neither.
 */
import { printable } from './printable.js';
import { isComplete, labelRanges, type PullEvent, type PullSummary, type WindowStatus } from './pull-summary.js';

export interface Reporter {
  readonly observe: (event: PullEvent) => void;
  readonly finish: (summary: PullSummary, out: string) => void;
}

export function reporter(stderr: NodeJS.WriteStream, now: () => number = Date.now): Reporter {
  const started = now();
  const live = stderr.isTTY === true;
  let rows = 0;
  let bytes = 0;
  let current = '';
  let position = '';
  // Only this file writes escape sequences; every text it shows is made printable first.
  const line = (text: string) => {
    if (live) stderr.write(`\r\x1b[2K${printable(text)}`);
  };
  const say = (text: string) => {
    if (live) stderr.write('\r\x1b[2K');
    stderr.write(`${printable(text)}\n`);
  };
  const show = () => {
    const seconds = Math.max((now() - started) / 1000, 0.001);
    line(`${position} ${current} · ${count(rows, 'row')} · ${formatBytes(bytes)} · ${Math.round(rows / seconds).toLocaleString('en-US')} rows/s`);
  };
  return {
    observe(event) {
      switch (event.kind) {
        case 'window-start':
          position = `[${event.index + 1}/${event.count}]`;
          current = event.window.month;
          show();
          break;
        case 'window-unchanged':
          rows += event.entries.reduce((total, entry) => total + entry.rows, 0);
          bytes += event.entries.reduce((total, entry) => total + entry.bytes, 0);
          break;
        case 'progress':
          rows += event.rows;
          bytes += event.bytes;
          show();
          break;
        case 'retry':
          // Before any window, the call is the export job's (its kick-off).
          say(`${current || 'export job'}: ${event.why}, retrying in ${(event.waitMs / 1000).toFixed(1)} s`);
          break;
        case 'split':
          say(`${event.window.from}..${event.window.to} is too large for one export: pulling ${event.into[0].from}..${event.into[0].to} and ${event.into[1].from}..${event.into[1].to}`);
          break;
        case 'window-failed':
          say(`${event.entry.window} failed: ${event.entry.error}`);
          break;
        case 'window-done':
          show();
          break;
        case 'orphans-removed':
          say(`removed ${event.files.length} file(s) named as this pull's that its manifest does not list (left by a run stopped before it recorded them, or by a lost manifest): ${event.files.join(', ')}`);
          break;
        case 'files-recovered':
          say(`finished what a run stopped before renaming: ${event.files.join(', ')}`);
          break;
        case 'folder-linked':
          say(`${event.out} is now a link into ${event.generations}, where its files moved: a run changes the folder for readers at one instant, by pointing the link to a new generation`);
          break;
        case 'run-resumed':
          say('going on from a run stopped before it finished: readers see the folder as the last finished run left it until this one ends');
          break;
        case 'waiting-quiet':
          say(`still being written: ${labelRanges(event.windows)}; pulling ${event.windows.length === 1 ? 'it' : 'them'} again in ${(event.waitMs / 1000).toFixed(0)} s (--until-quiet)`);
          break;
        case 'job-started':
          say(`export job ${event.id}: ${count(event.windows, 'window')}, ${event.unchangedAsked} sent with the ETag of the folder's files`);
          position = '[job]';
          current = `${event.windows} windows`;
          break;
        case 'job-progress':
          current = `${event.done}/${event.windows} windows exported`;
          show();
          break;
        case 'job-not-offered':
          say(`window by window: ${event.why}`);
          break;
        case 'delta-start':
          if (event.grownFrom) say(`the range grew since the folder's token (${event.grownFrom.from}..${event.grownFrom.to}): the days added come whole in the delta`);
          position = '[delta]';
          current = event.start === 'token' ? 'changes since the last run' : event.start === 'since' ? 'changes since the folder\'s watermark' : 'the whole range';
          show();
          break;
        case 'delta-restart':
          say(event.then === 'whole-range'
            ? `the folder's delta cannot go on (${event.code}: ${event.why}): pulling the whole range again from a new delta (only the months whose contents changed are written)`
            : `the folder's delta cannot be merged this run (${event.code}: ${event.why}): pulling the range by its ETags, then taking a new token`);
          break;
        case 'delta-not-offered':
          say(`not through the delta: ${event.why}`);
          break;
        case 'rewrite':
          say(event.why === 'schema'
            ? 'the columns your roles see changed: pulling every window again, into one schema (the folder changes only once all are in)'
            : 'a folder of an older summary-client, without ETags: pulling every window again once (the folder changes only once all are in)');
          break;
      }
    },
    finish(summary, out) {
      const seconds = (now() - started) / 1000;
      say(
        `${isComplete(summary) ? 'complete' : 'not complete'}: ${count(summary.windows, 'window')} (${summary.pulled} pulled, ${summary.unchanged} unchanged), ` +
          `${count(summary.rows, 'row')}, ${formatBytes(summary.bytes)} in ${count(summary.files.length, 'file')} in ${seconds.toFixed(1)} s → ${out}`,
      );
      const named = (status: WindowStatus) => summary.outcomes.filter((outcome) => outcome.status === status).map((outcome) => outcome.label);
      if (summary.job) say(`through export job ${summary.job.id}: every write before ${summary.job.transactionTime} is in the windows it answered`);
      if (summary.watermark) say(`watermark: ${summary.watermark} (every write before it is in the folder)`);
      if (summary.delta) say(`through the delta (${summary.delta.start === 'token' ? 'from the folder\'s token' : summary.delta.start === 'since' ? 'from the folder\'s watermark' : 'the whole range'}${summary.delta.restarted ? `, started again: ${summary.delta.restarted}` : ''}): ${count(sumOf(summary, 'changed'), 'record')} changed, ${count(sumOf(summary, 'removed'), 'record')} removed`);
      if (named('pulled').length > 0) say(`pulled: ${labelRanges(named('pulled'))}`);
      if (named('merged').length > 0) say(`merged: ${labelRanges(named('merged'))}`);
      if (summary.moving.length > 0) {
        say(`still being written: ${labelRanges(summary.moving)} (${summary.notQuiet ? 'still at the end of --until-quiet' : 'kept as pulled'}; the next run checks ${summary.moving.length === 1 ? 'it' : 'them'} again)`);
      }
      if (named('unchanged').length > 0) say(`unchanged: ${labelRanges(named('unchanged'))}`);
      if (named('not-tried').length > 0) say(`not tried: ${labelRanges(named('not-tried'))}`);
      if (summary.stopped) say(`stopped: ${summary.stopped}`);
      if (summary.foreign?.length) {
        say(`not a dataset as it is: ${out} holds ${count(summary.foreign.length, 'file')} this pull did not write, which readers of the folder load with its own: ${summary.foreign.join(', ')} (move ${summary.foreign.length === 1 ? 'it' : 'them'} out of the folder: the pull never removes what it did not write)`);
      }
      if (summary.failed.length > 0) say(`failed windows: ${summary.failed.map((entry) => entry.window).join(', ')} (run the same command again to retry them)`);
    },
  };
}

/** The records a delta changed or removed over the folder's windows. */
function sumOf(summary: PullSummary, what: 'changed' | 'removed'): number {
  return summary.outcomes.reduce((total, outcome) => total + (outcome[what] ?? 0), 0);
}

/** `1 row`, `2 rows`, `1,234 rows`. */
export function count(value: number, noun: string): string {
  return `${value.toLocaleString('en-US')} ${noun}${value === 1 ? '' : 's'}`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
