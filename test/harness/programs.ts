import { execFile } from 'node:child_process';
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
