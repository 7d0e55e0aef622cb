import { execFile } from 'node:child_process';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

// Helm and the chart's object checker (deploy/helm/check), built from the Go module proxy for the
// chart's test (test/int/deploy/helm.int.test.ts). Only tests use them: nothing of the platform or
// the local stack needs Helm, so they live here rather than in infra/.

export const helmVersion = 'v3.22.1';
const helmModule = 'helm.sh/helm/v3';
// What Helm's Makefile stamps into a release build: its version, and the Kubernetes version that
// `helm template` assumes and `helm lint` judges deprecated APIs by (one above the major of its
// k8s.io/client-go, v0.37.1 at v3.22.1, and the same minor). A plain `go install` leaves 1.20.
const helmLdflags = [
  `-X ${helmModule}/internal/version.version=${helmVersion}`,
  ...['pkg/lint/rules', 'pkg/chartutil'].flatMap((pkg) => [
    `-X ${helmModule}/${pkg}.k8sVersionMajor=1`,
    `-X ${helmModule}/${pkg}.k8sVersionMinor=37`,
  ]),
].join(' ');

const root = resolve(import.meta.dirname, '../..');
const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'orrery');
const helmDir = join(cache, `helm-${helmVersion}`);
export const helmPath = join(helmDir, 'helm');
const checkerPath = join(cache, 'helm-check', 'check');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end; its exit code and output, failing or not (the caller judges). */
export async function run(
  command: string,
  args: string[],
  options: { input?: string; cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Run> {
  const running = promisify(execFile)(command, args, {
    cwd: options.cwd ?? root,
    env: { ...process.env, ...options.env },
    timeout: options.timeoutMs ?? 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (options.input !== undefined) running.child.stdin?.end(options.input);
  try {
    const { stdout, stderr } = await running;
    return { code: 0, stdout, stderr };
  } catch (error) {
    const {
      code,
      stdout = '',
      stderr = '',
    } = error as { code?: number | string; stdout?: string; stderr?: string };
    if (code === 'ENOENT' && command === 'go')
      throw new Error(
        'Helm and the chart check build from source: put Go 1.21 or later on the PATH (go.dev/dl)',
      );
    if (typeof code !== 'number')
      throw new Error(`${command} ${args.join(' ')}: ${String(error)}\n${stderr}`);
    return { code, stdout, stderr };
  }
}

async function succeed(command: string, args: string[], options: Parameters<typeof run>[2]): Promise<string> {
  const result = await run(command, args, options);
  if (result.code !== 0)
    throw new Error(
      `${command} ${args.join(' ')} exited ${result.code}:\n${result.stdout}\n${result.stderr}`,
    );
  return result.stdout;
}

/** The version a helm binary reports; undefined when it is missing or does not run. */
async function builtVersion(): Promise<string | undefined> {
  const result = await run(helmPath, ['version', '--template', '{{.Version}}']).catch(() => undefined);
  return result?.code === 0 ? result.stdout.trim() : undefined;
}

/**
 * Helm, built once into ~/.cache/orrery/helm-v3.22.1 (or under $XDG_CACHE_HOME) and reused. A
 * binary there that reports another version (a plain `go install`, without the release's
 * ldflags) is replaced. Built into a folder of its own and moved into place, so a build cut short
 * leaves nothing that looks finished. Answers how long the build took, 0 when reused.
 */
export async function ensureHelm(log: (line: string) => void): Promise<number> {
  if ((await builtVersion()) === helmVersion) return 0;
  const started = Date.now();
  const building = `${helmDir}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  log(`building helm ${helmVersion} from the Go module proxy (minutes the first time)`);
  await succeed('go', ['install', '-ldflags', helmLdflags, `${helmModule}/cmd/helm@${helmVersion}`], {
    env: { GOBIN: building, GOFLAGS: '-buildvcs=false' },
    timeoutMs: 20 * 60_000,
  });
  rmSync(helmDir, { recursive: true, force: true });
  renameSync(building, helmDir);
  if ((await builtVersion()) !== helmVersion) throw new Error(`${helmPath} does not report ${helmVersion}`);
  return Date.now() - started;
}

/**
 * The chart's object checker (deploy/helm/check/main.go), built into the cache on every run: Go
 * rebuilds only when its source or go.sum moved (a fraction of a second otherwise).
 */
export async function ensureChecker(): Promise<string> {
  mkdirSync(join(cache, 'helm-check'), { recursive: true });
  await succeed('go', ['build', '-o', checkerPath, '.'], {
    cwd: join(root, 'deploy/helm/check'),
    env: { GOFLAGS: '-buildvcs=false' },
    timeoutMs: 20 * 60_000,
  });
  return checkerPath;
}

/** `helm <args>` with this checkout as its working folder. */
export function helm(...args: string[]): Promise<Run> {
  return run(helmPath, args);
}

/** The checker's verdict on a stream of YAML documents. */
export function checkObjects(yaml: string): Promise<Run> {
  return run(checkerPath, [], { input: yaml });
}
