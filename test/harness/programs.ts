import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * Runs a program to its end without blocking the event loop (an API answering it may be in this
 * process); its stdout, or an error with everything it printed.
 */
export async function runProgram(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<string> {
  try {
    return (await promisify(execFile)(command, args, { cwd, env: { ...process.env, ...env } })).stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout}\n${stderr}`);
  }
}

/**
 * A workspace package as a user gets it: `npm pack` (which builds it) into `consumer`, an empty
 * ESM project made there, and the tarball installed with `alongside` (peers a user adds). Answers
 * the files the tarball publishes, for the caller to check.
 */
export async function installPacked(
  packageDir: string,
  consumer: string,
  alongside: string[] = [],
): Promise<string[]> {
  const packed = JSON.parse(
    await runProgram('npm', ['pack', '--json', '--pack-destination', consumer], packageDir),
  ) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const tarball = packed[0]!;
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'user', private: true, type: 'module' }),
  );
  await runProgram(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', `./${tarball.filename}`, ...alongside],
    consumer,
  );
  return tarball.files.map(({ path }) => path);
}
