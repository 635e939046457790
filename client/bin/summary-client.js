#!/usr/bin/env node
// The summary-client command: the compiled CLI (npm run build in client/, or prepack, makes dist/).
import '../dist/cli.js';
