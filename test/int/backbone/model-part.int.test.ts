import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { modelComponent } from '../../../infra/stack/model.ts';
import { parseConfig } from '../../../platform/config.ts';

// The default model's part fails the stack's start the way the other parts do (issue 13, bad
// input): naming itself, its port and its log, with the log's last lines. Here its port is
// taken, so llama.cpp's server cannot listen and its process ends; the start reports that at
// once rather than after its 60 s wait.

const stackDir = mkdtempSync(join(tmpdir(), 'orrery-model-part-'));
let squatter: Server | undefined;
afterAll(() => {
  squatter?.close();
  rmSync(stackDir, { recursive: true, force: true });
});

it.skipIf(parseConfig().inference.localModel === undefined || process.env.STACK === 'testcontainers')(
  'a model part that cannot start fails the start with its name and the last lines of its log',
  async () => {
    squatter = createServer();
    const port = await new Promise<number>((resolve) =>
      squatter!.listen(0, '127.0.0.1', () => resolve((squatter!.address() as { port: number }).port)),
    );
    const config = parseConfig({
      ...process.env,
      ORRERY_STACK_DIR: stackDir,
      ORRERY_DEFAULT_MODEL_PORT: String(port),
    });
    const part = modelComponent(config, config.inference.localModel!);
    part.install(() => {});
    const started = Date.now();
    await expect(part.start(() => {})).rejects.toThrow(
      new RegExp(
        `^model is not healthy on port ${port} after 60 s; read ${join(stackDir, 'logs', 'model.log')}\\n[\\s\\S]*Failed to init server`,
      ),
    );
    expect(Date.now() - started).toBeLessThan(30_000);
  },
);
