/**
 * The order jest starts suites in: last run's failures first (the answer a developer waits for),
 * then the heaviest kind first, so that no long suite starts late and runs alone at the end while
 * the other workers idle.
 *
 * Jest's own order is by each suite's time in the last run on this machine, and by file size where
 * it has none. A fresh checkout (CI) has none, and size misleads here: test/client/exact-folders-job.test.ts
 * is 202 bytes (its cases are in a shared module) and takes 100 s, so jest started it last, and the
 * run waited 1.5 minutes on it. So suites go by kind first — the CLI suites (each spawns the CLI
 * and servers many times), then the other suites against the stack, then the unit tier, whose many
 * short suites fill the end evenly — and by jest's own order within a kind.
 */
import Sequencer from '@jest/test-sequencer';

const BaseSequencer = Sequencer.default ?? Sequencer;

/** Lower starts first. */
const KINDS = [/\/test\/client\//, /\/test\/(integration|e2e|security|system)\//];
const kindOf = (path) => {
  const index = KINDS.findIndex((pattern) => pattern.test(path));
  return index === -1 ? KINDS.length : index;
};

export default class HeaviestKindFirst extends BaseSequencer {
  sort(tests) {
    const ordered = super.sort(tests);
    const position = new Map(ordered.map((test, index) => [test, index]));
    const failed = (test) => (this.hasFailed(test) ? 0 : 1);
    return [...ordered].sort((a, b) => failed(a) - failed(b) || kindOf(a.path) - kindOf(b.path) || position.get(a) - position.get(b));
  }
}
