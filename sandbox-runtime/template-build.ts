import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { refreshFontCaches } from './desktop/packages.ts';
import type { SandboxRuntime } from './runtime.ts';
import {
  logTail,
  readTemplate,
  type TemplateRecipe,
  type TemplateRecord,
  templateLayout,
  writeTemplate,
} from './template-store.ts';

// A template from a recipe (template-store.ts): the base plus Debian packages and commands, like
// a Containerfile's RUN lines, run as root in a throwaway sandbox with the open internet (apt
// reaches the mirror the host's apt uses through it), whose changes then become the template's
// layer. Each step's output goes to the template's build log; a step that fails leaves the
// template `failed` with the log's tail. Built once: a recipe already built on this base, under
// any template id, is taken as it is (its digest says so), with its layers.

/** How long one step (apt's update or install, one RUN line) may take: the runtime's exec limit. */
const stepSeconds = 600;

export function recipeDigest(base: string, recipe: TemplateRecipe): string {
  return createHash('sha256').update(JSON.stringify({ base, recipe })).digest('hex');
}

/** The recipe's steps as shell commands, in order. */
export function recipeSteps(recipe: TemplateRecipe): string[] {
  const apt = 'DEBIAN_FRONTEND=noninteractive apt-get';
  const packages =
    recipe.packages.length === 0
      ? []
      : [
          `${apt} update -q`,
          `${apt} install -y -q --no-install-recommends ${recipe.packages.map(quote).join(' ')}`,
          'rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb',
          refreshFontCaches,
        ];
  return [...packages, ...recipe.run];
}

function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Builds template `id` from `recipe`, or takes the same recipe's ready template; resolves with
 * the template, `ready` or `failed`. Starts at once and may take minutes (apt).
 */
export async function buildTemplate(
  runtime: SandboxRuntime,
  id: string,
  recipe: TemplateRecipe,
): Promise<TemplateRecord> {
  const host = await runtime.prepare();
  const digest = recipeDigest(host.rootfs, recipe);
  const source = { kind: 'recipe' as const, recipe, digest };
  const built = runtime
    .templates()
    .find(
      (template) =>
        template.status === 'ready' && template.source.kind === 'recipe' && template.source.digest === digest,
    );
  if (readTemplate(runtime.dir, id) !== undefined) throw new Error(`template ${id} exists already`);
  if (built !== undefined) {
    const template = { ...built, id, createdAt: new Date().toISOString(), source };
    return writeTemplate(runtime.dir, template);
  }
  const { log } = templateLayout(runtime.dir, id);
  const building = writeTemplate(runtime.dir, {
    id,
    createdAt: new Date().toISOString(),
    status: 'building',
    base: host.rootfs,
    source,
    layers: [],
    failure: null,
  });
  const builder = `build-${id}`.slice(0, 63);
  const failed = (failure: string) => writeTemplate(runtime.dir, { ...building, status: 'failed', failure });
  try {
    await runtime.create(builder, { size: 'standard', network: { egress: 'open', allow: [], deny: [] } });
    for (const step of recipeSteps(recipe)) {
      appendFileSync(log, `$ ${step}\n`);
      const { result, timedOut } = await runtime.exec(builder, step, { timeoutSeconds: stepSeconds });
      appendFileSync(log, result.stdout + result.stderr);
      if (result.exit_code !== 0) {
        const why = timedOut ? `timed out after ${stepSeconds} s` : `exited with ${result.exit_code}`;
        appendFileSync(log, `\n${why}: ${step}\n`);
        return failed(logTail(log));
      }
    }
    // The layer is the builder's changes; its source says the recipe, not the throwaway sandbox.
    return await runtime.snapshot(builder, id, source);
  } catch (error) {
    appendFileSync(log, `\n${error instanceof Error ? error.message : String(error)}\n`);
    return failed(logTail(log));
  } finally {
    await runtime.destroy(builder).catch(() => undefined);
  }
}
