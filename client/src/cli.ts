// The summary-client command (see command.ts for what it takes).
import { main } from './command.js';

// A run commits a folder synchronously (its manifest, then the renames into place: folder.ts). By
// default SIGINT, SIGTERM and SIGHUP end the process where they land, which can be between two
// renames; handled, they wait for the commit under way, and are then sent again without the
// handler, so the run ends by the signal as it would have (a shell or systemd sees it so).
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => process.kill(process.pid, signal));
}

process.exitCode = await main(process.argv.slice(2));
