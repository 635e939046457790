// The summary-client command (see command.ts for what it takes).
import { main } from './command.js';

process.exitCode = await main(process.argv.slice(2));
