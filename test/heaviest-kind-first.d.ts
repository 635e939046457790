/** test/heaviest-kind-first.js's type, for the unit test that holds its order. */
import type TestSequencerModule from '@jest/test-sequencer';

/** jest's TestSequencer: the package is CommonJS, its class the `default` member. */
declare const TestSequencer: typeof TestSequencerModule.default;

export default class HeaviestKindFirst extends TestSequencer {}
