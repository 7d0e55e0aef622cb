import { config } from '../../platform/config.ts';
import { ensureEngine } from './engine.ts';
import { ensureImages } from './images.ts';
import { buildPartImages } from './parts.ts';

// `npm run containers -- engine|build`: finds or brings up a Docker-compatible engine (printing
// the DOCKER_HOST to use), and builds the base, Orrery and stack part images on it (cached).
const log = (line: string) => process.stderr.write(`[containers] ${line}\n`);
const command = process.argv[2] ?? 'engine';

try {
  if (command !== 'engine' && command !== 'build') {
    log(`unknown command "${command}"; use engine or build`);
    process.exitCode = 2;
  } else {
    const engine = await ensureEngine(config(), log);
    if (command === 'build') {
      await ensureImages(engine, log);
      const timings = await buildPartImages(engine, config(), log);
      for (const [step, seconds] of Object.entries(timings)) log(`${step}: ${seconds.toFixed(1)} s`);
    }
    process.stdout.write(`DOCKER_HOST=${engine.dockerHost}\n`);
  }
} catch (error) {
  log(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
