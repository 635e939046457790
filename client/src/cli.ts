// The summary-client command (see command.ts for what it takes).
import { constants } from 'node:os';
import { main } from './command.js';

// A run commits a folder synchronously (its manifest, then the renames into place: folder.ts). By
// default SIGINT, SIGTERM and SIGHUP end the process where they land, which can be between two
// renames; handled, they wait for the commit under way, and the run then stops as they ask.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => process.exit(128 + constants.signals[signal]));
}

process.exitCode = await main(process.argv.slice(2));
