import { randomBytes } from 'node:crypto';
import type { Sandbox } from '../domain/sandboxes/sandbox.ts';
import { decide, type TemplateCommandBody } from '../domain/templates/decide.ts';
import { newTemplateId } from '../domain/templates/names.ts';
import type { CreateTemplateBody } from '../domain/templates/requests.ts';
import type { Template } from '../domain/templates/template.ts';
import type { Logger } from '../platform/logger.ts';
import type { EventProducer } from '../producers/producer.ts';
import { recordTemplateCommand, templateCommand, type VersionedTemplate } from '../producers/template.ts';
import type { SandboxRuntime } from '../sandbox-runtime/runtime.ts';
import { buildTemplate } from '../sandbox-runtime/template-build.ts';
import type { LoadedTemplate, TemplateStore } from '../stores/templates.ts';
import type { SandboxCommands } from './commands.ts';
import { NotThisHost } from './errors.ts';
import type { HostRoom } from './room.ts';
import { KeyedLocks } from './serial.ts';

// The shell around domain/templates' decider (issue 48), run by the sandbox host that makes and
// keeps a template: its files live in this host's state folder (sandbox-runtime/template-store.ts)
// and nowhere else. As for sandboxes (commands.ts), a command's state is the template's row in the
// read model, loaded under the template's in-process lock; names are the org's across hosts, so a
// new template also holds the org's claim in Postgres (stores/templates.ts claimingNames).
//
// - From a recipe: recorded `building` and answered at once; the build (minutes, apt) runs in the
//   background in a throwaway sandbox of its own, and its end is recorded `ready` or `failed` with
//   the tail of its log. Its room, a `standard` sandbox's, is held until it ends.
// - From a sandbox: recorded, then the files copied with the sandbox frozen (under the sandbox's
//   lock, so no stop or destroy cuts in), then recorded `ready`; answered once ready.
// - Delete: decided first (refused while building, or while the read model shows anything standing
//   on it), then done by the runtime, which refuses too while anything it holds stands on it (a
//   run's sandbox, a create under way), then recorded: a template is never shown deleted while its
//   files are still here.
// - On start, a template the read model shows building that no process here builds any more (a
//   crash) is finished from what the runtime holds: ready if it got there, otherwise failed, saying so.

export interface TemplateCommandDeps {
  hostId: string;
  templates: TemplateStore;
  /** The sandbox shell: a snapshot holds its sandbox's lock, and reads the sandbox's row. */
  sandboxes: SandboxCommands;
  runtime: SandboxRuntime;
  room: HostRoom;
  producer: EventProducer;
  now: () => Date;
  logger: Logger;
  projectionTimeoutMs: number;
}

/** The size of a recipe's throwaway build sandbox (sandbox-runtime/template-build.ts). */
const buildSize = 'standard';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class TemplateCommands {
  private readonly locks = new KeyedLocks();
  private readonly builds = new Set<Promise<void>>();

  constructor(private readonly deps: TemplateCommandDeps) {}

  private record(
    template: { id: string; orgId: string },
    body: TemplateCommandBody,
    loaded?: LoadedTemplate,
  ) {
    const { producer, templates, projectionTimeoutMs, now } = this.deps;
    const command = templateCommand(template, body, now());
    return recordTemplateCommand(
      { producer, readModel: templates, timeoutMs: projectionTimeoutMs },
      command,
      loaded,
    );
  }

  /** Runs `task` under the template's lock with its state freshly loaded; answers the state it leaves. */
  private onTemplate(templateId: string, task: (loaded: LoadedTemplate) => Promise<VersionedTemplate>) {
    return this.locks.run(templateId, async () => {
      const loaded = await this.deps.templates.byId(templateId);
      if (!loaded) throw new Error(`template ${templateId} is not in the read model`);
      this.mustKeep(loaded.template);
      return (await task(loaded)).template;
    });
  }

  mustKeep(template: Pick<Template, 'id' | 'host'>): void {
    if (template.host !== this.deps.hostId)
      throw new NotThisHost(template.id, template.host, this.deps.hostId);
  }

  /** A new template of `name`, claimed across hosts, decided with `body`. */
  private claimAndRecord(orgId: string, name: string, body: (nameTaken: boolean) => TemplateCommandBody) {
    const { templates } = this.deps;
    const template = { id: newTemplateId(randomBytes), orgId };
    return this.locks.run(`org:${orgId}`, () =>
      templates.claimingNames(orgId, async () =>
        this.record(template, body(await templates.nameTaken(orgId, name))),
      ),
    );
  }

  /** Recorded `building` on this host (NoRoom when it has no room for the build); built in the background. */
  async fromRecipe(orgId: string, body: CreateTemplateBody): Promise<Template> {
    const release = await this.deps.room.reserve(buildSize);
    let requested: VersionedTemplate;
    try {
      requested = await this.claimAndRecord(orgId, body.name, (nameTaken) => ({
        type: 'CreateFromRecipe',
        name: body.name,
        nameTaken,
        recipe: body.recipe,
        host: this.deps.hostId,
      }));
    } catch (error) {
      release();
      throw error;
    }
    const build = this.build(requested.template, body.recipe).finally(() => {
      release();
      this.builds.delete(build);
    });
    this.builds.add(build);
    return requested.template;
  }

  private async build(template: Template, recipe: CreateTemplateBody['recipe']): Promise<void> {
    const { runtime, logger } = this.deps;
    const built = await buildTemplate(runtime, template.id, recipe).then(
      (record) =>
        record.status === 'ready'
          ? ({ type: 'ReportBuilt' } as const)
          : ({ type: 'ReportFailed', failure: record.failure ?? 'The build failed.' } as const),
      (error: unknown) =>
        ({ type: 'ReportFailed', failure: `The build could not run: ${messageOf(error)}` }) as const,
    );
    await this.onTemplate(template.id, (loaded) => this.record(template, built, loaded)).catch(
      (error: unknown) =>
        logger.error(
          { err: error, templateId: template.id },
          'templates: the end of a build was not recorded',
        ),
    );
  }

  /** A template of a running sandbox's files as they are now, on its host (this one); answers it ready. */
  async snapshot(sandbox: Sandbox, name: string): Promise<Template> {
    const { sandboxes, runtime } = this.deps;
    sandboxes.mustHold(sandbox);
    const current = (await sandboxes.deps.store.byId(sandbox.id))?.sandbox;
    const requested = await this.claimAndRecord(sandbox.orgId, name, (nameTaken) => ({
      type: 'SnapshotSandbox',
      name,
      nameTaken,
      sandbox: current,
    }));
    const { template } = requested;
    const made = await sandboxes.locks
      .run(sandbox.id, () => runtime.snapshot(sandbox.id, template.id))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    return this.onTemplate(template.id, async (loaded) => {
      if (made === undefined) return this.record(template, { type: 'ReportBuilt' }, loaded);
      await this.record(template, { type: 'ReportFailed', failure: messageOf(made) }, loaded);
      throw made;
    });
  }

  /** Deleted from the runtime, then recorded (see above); a deleted template is answered as it is. */
  delete(template: Template): Promise<Template> {
    return this.onTemplate(template.id, async (loaded) => {
      const usedBy = await this.deps.templates.usersOf(template.id);
      const body = { type: 'DeleteTemplate', usedBy } as const;
      // Refusals first, before the runtime touches anything; a repeat decides nothing.
      if (decide(templateCommand(template, body, this.deps.now()), loaded.template).length === 0)
        return loaded;
      await this.deps.runtime.deleteTemplate(template.id);
      return this.record(template, body, loaded);
    });
  }

  /** On start: builds a dead process left `building` are ended, from what the runtime holds. */
  async recover(): Promise<void> {
    const { runtime, logger } = this.deps;
    for (const { template } of await this.deps.templates.building(this.deps.hostId)) {
      try {
        const held = runtime.template(template.id);
        let report: TemplateCommandBody;
        if (held?.status === 'ready') report = { type: 'ReportBuilt' };
        else if (held?.status === 'failed' && held.failure !== null)
          report = { type: 'ReportFailed', failure: held.failure };
        else {
          await runtime.destroy(`build-${template.id}`.slice(0, 63)).catch(() => undefined);
          await runtime.deleteTemplate(template.id).catch(() => undefined);
          report = {
            type: 'ReportFailed',
            failure:
              'The sandbox host stopped while the template was being made: delete it and make it again.',
          };
        }
        await this.onTemplate(template.id, (loaded) => this.record(template, report, loaded));
      } catch (error) {
        logger.error({ err: error, templateId: template.id }, 'templates: recovery could not end a build');
      }
    }
  }

  /** Resolves once the builds under way have ended (or after `timeoutMs`). */
  async settled(timeoutMs = 10_000): Promise<void> {
    await Promise.race([
      Promise.all(this.builds),
      new Promise((resolve) => setTimeout(resolve, timeoutMs).unref()),
    ]);
  }
}
