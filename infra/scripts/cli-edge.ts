/**
 * The Azure CLI and GitHub CLI as `npm run bootstrap` talks to them: run for real, or printed
 * instead (the dry run), behind one interface a test can stand in for.
 */
import { execFileSync } from 'node:child_process';

/**
 * The Azure CLI and GitHub CLI: the edge of this script (Azure and GitHub cannot exist here).
 * `read` answers a lookup ('' when there is nothing); `change` changes something and answers its
 * output, `name` naming that output (the dry run answers `<name>`); `input` goes to its stdin and
 * is shown only when it is no secret.
 */
export interface Cli {
  read(command: readonly string[]): string;
  change(command: readonly string[], options?: ChangeOptions): string;
}

/** How a change is run. */
export interface ChangeOptions {
  readonly name?: string;
  readonly input?: string;
  readonly secret?: boolean;
}

/** The printed form of a change: a copyable command line, its stdin shown unless secret. */
export function describeChange(command: readonly string[], options: ChangeOptions = {}): string {
  const line = command.map(shellQuote).join(' ');
  if (options.input === undefined) return line;
  return options.secret === true ? `${line} < (secret, not shown)` : `${line} <<< ${shellQuote(options.input)}`;
}

/** Quotes an argument for a POSIX shell when it needs it. */
export function shellQuote(argument: string): string {
  return /^[\w@%+=:,./-]+$/.test(argument) ? argument : `'${argument.replaceAll("'", `'\\''`)}'`;
}

/** Runs the commands: lookups that fail (not found) answer ''. */
export function realCli(): Cli {
  return {
    read(command) {
      try {
        return execFileSync(command[0]!, command.slice(1), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      } catch {
        return '';
      }
    },
    change(command, options = {}) {
      console.log(`+ ${describeChange(command, options)}`);
      return execFileSync(command[0]!, command.slice(1), {
        encoding: 'utf8',
        input: options.input,
        stdio: ['pipe', 'pipe', 'inherit'],
      }).trim();
    },
  };
}

/** Prints every command instead of running it; lookups find nothing, so every change is shown. */
export function dryRunCli(print: (line: string) => void = console.log): Cli {
  return {
    read(command) {
      print(`? ${command.map(shellQuote).join(' ')}`);
      return '';
    },
    change(command, options = {}) {
      print(`+ ${describeChange(command, options)}`);
      return `<${options.name ?? 'output'}>`;
    },
  };
}
