import type { RequestLogger } from '../telemetry/request-log-entry.js';

/**
 * A logger writing JSON lines through the given sinks: the console, locally and in Azure alike
 * (the Functions host takes a worker's console output as its logs; create-summary-deps.ts).
 */
export function createJsonLogger(info: (line: string) => void, error: (line: string) => void): RequestLogger {
  return {
    // The same line as JSON.stringify({ level: 'info', ...entry }), without copying the entry.
    request: (entry) => {
      const fields = JSON.stringify(entry);
      info(fields === '{}' ? '{"level":"info"}' : `{"level":"info",${fields.slice(1)}`);
    },
    warning: (requestId, message) => error(JSON.stringify({ level: 'warn', requestId, warning: message })),
    fault: (requestId, fault) => {
      // The error's type and stack frames only: the message of an unexpected error may quote input.
      const name = fault instanceof Error ? fault.name : typeof fault;
      const frames = fault instanceof Error ? fault.stack?.split('\n').slice(1, 8).map((frame) => frame.trim()) : undefined;
      error(JSON.stringify({ level: 'error', requestId, error: name, frames }));
    },
  };
}
