import { execFile } from 'node:child_process';
import { projectRoot } from '../../dev/project-root.js';

/** What a finished child process left. */
export interface ChildResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The signal that ended it, if one did. */
  readonly signal?: NodeJS.Signals;
}

/**
 * Runs a command in the project root with exactly `env` (plus PATH), as a user would from a shell,
 * and resolves with its exit code and output whatever the code.
 */
export function runChild(command: string, args: readonly string[], env: Readonly<Record<string, string>>, timeoutMs = 60_000): Promise<ChildResult> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: projectRoot(), env: { PATH: process.env.PATH ?? '', ...env }, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr), ...(error?.signal ? { signal: error.signal } : {}) });
    });
  });
}

/** The secrets among `settings` (client secret, keys) and any JWT that appear in `text`. */
export function leakedSecrets(text: string, settings: Readonly<Record<string, string>>): string[] {
  const secrets = ['SUMMARY_CLIENT_SECRET', 'SUMMARY_SUBSCRIPTION_KEY', 'SUMMARY_API_KEY'].map((name) => settings[name]).filter((value): value is string => Boolean(value));
  return [...secrets.filter((secret) => text.includes(secret)), ...(text.match(/eyJ[\w-]+\.[\w-]+\.[\w-]+/g) ?? [])];
}
