import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { projectRoot } from '../../dev/project-root.js';
import { runChild } from './run-child.js';

/**
 * A Python virtual environment with `packages`, made once in `.local/<name>` (git-ignored) by the
 * machine's `python3` (or $PYTHON), installed with pip from the package index pip is configured
 * with. Where pip's configuration names extra indexes and no index (this workplace's local wheel
 * indexes, its default one unreachable), the first of them is made the index, so pip does not
 * wait on the unreachable one. Resolves with the environment's python.
 */
export async function pythonEnv(name: string, packages: readonly string[], options: PythonEnvOptions = {}): Promise<string> {
  const dir = join(projectRoot(), '.local', name);
  const python = join(dir, 'bin', 'python');
  const modules = packages.map((spec) => spec.replace(/[<>=\[].*$/, '').replace(/-/g, '_'));
  const check = `import ${modules.join(', ')}`;
  if (existsSync(python) && (await runChild(python, ['-c', check], {})).code === 0) return withLocal(python, options.local ?? []);
  const system = options.python ?? process.env.PYTHON ?? 'python3';
  const venvArgs = ['-m', 'venv', '--clear', ...(options.systemSitePackages ? ['--system-site-packages'] : []), dir];
  const made = await runChild(system, venvArgs, { HOME: process.env.HOME ?? '' }, 120_000);
  if (made.code !== 0) throw new Error(`${system} -m venv ${dir} failed: ${made.stderr}`);
  const env = await pipEnv(system);
  const installed = await runChild(python, ['-m', 'pip', 'install', '--quiet', ...packages], env, 600_000);
  if (installed.code !== 0) throw new Error(`pip install ${packages.join(' ')} failed: ${installed.stderr.slice(-2000)}`);
  const verified = await runChild(python, ['-c', check], {});
  if (verified.code !== 0) throw new Error(`${check} failed after installing: ${verified.stderr}`);
  return withLocal(python, options.local ?? []);
}

/** Options of a virtual environment. */
export interface PythonEnvOptions {
  /** The interpreter that makes it (default $PYTHON, else python3). */
  readonly python?: string;
  /** See the interpreter's own packages (Debian's python3-msal, say). */
  readonly systemSitePackages?: boolean;
  /** Project folders installed on every call, without their dependencies, so the code under test is never stale. */
  readonly local?: readonly string[];
}

/**
 * Installs the project folders from copies of their own: pip builds a folder in it (`build/`,
 * `*.egg-info`), and suites that install the same folder at once broke each other's builds.
 */
async function withLocal(python: string, local: readonly string[]): Promise<string> {
  if (local.length === 0) return python;
  const env = await pipEnv(python);
  const copies = mkdtempSync(join(tmpdir(), 'pip-local-'));
  try {
    const sources = local.map((folder, index) => {
      const copy = join(copies, `${index}-${basename(folder)}`);
      cpSync(folder, copy, { recursive: true, filter: (path) => !/(?:^|[\\/])(?:build|[^\\/]*\.egg-info|__pycache__)$/.test(path) });
      return copy;
    });
    const installed = await runChild(python, ['-m', 'pip', 'install', '--quiet', '--no-deps', '--force-reinstall', ...sources], env, 300_000);
    if (installed.code !== 0) throw new Error(`pip install ${local.join(' ')} failed: ${installed.stderr.slice(-2000)}`);
  } finally {
    rmSync(copies, { recursive: true, force: true });
  }
  return python;
}

/** pip's environment: this workplace's local index made the index when pip names only extra ones. */
async function pipEnv(system: string): Promise<Record<string, string>> {
  const env: Record<string, string> = { HOME: process.env.HOME ?? '', PIP_DISABLE_PIP_VERSION_CHECK: '1' };
  const configured = await runChild(system, ['-m', 'pip', 'config', 'get', 'global.index-url'], { HOME: env.HOME! });
  const extra = (await runChild(system, ['-m', 'pip', 'config', 'get', 'global.extra-index-url'], { HOME: env.HOME! })).stdout.trim().split(/\s+/).filter(Boolean);
  if (configured.code !== 0 && extra.length > 0) {
    env.PIP_INDEX_URL = extra[0]!;
    env.PIP_EXTRA_INDEX_URL = extra.slice(1).join(' ');
  }
  return env;
}
