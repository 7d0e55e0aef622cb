import { randomUUID } from 'node:crypto';
import { decide, type TemplateCommand, type TemplateCommandBody } from '../domain/templates/decide.ts';
import type { TemplateEvent } from '../domain/templates/events.ts';
import { evolve, type Template } from '../domain/templates/template.ts';
import { templateEventToWire } from '../schemas/events/template-mapping.ts';
import type { EventProducer } from './producer.ts';
import { ReadModelBehind } from './sandbox.ts';

/** Template events are keyed by template, so one template's history stays in order on one partition. */
export function publishTemplateEvents(producer: EventProducer, events: TemplateEvent[]): Promise<void> {
  return producer.send(
    'template',
    events.map((event) => ({ key: event.templateId, value: templateEventToWire(event) })),
  );
}

/** A template's state and how many events made it (the read model's `version`). */
export interface VersionedTemplate {
  template: Template;
  version: number;
}

export interface TemplateRecordDeps {
  producer: EventProducer;
  /** The read model (stores/templates.ts): true once it has applied `version` events to the template. */
  readModel: { waitForVersion(templateId: string, version: number, timeoutMs: number): Promise<boolean> };
  /** How long to wait for it before ReadModelBehind (503). */
  timeoutMs: number;
}

/** A command on template `templateId` of `orgId`, with a fresh event id and the given time. */
export function templateCommand(
  template: { id: string; orgId: string },
  body: TemplateCommandBody,
  now: Date,
): TemplateCommand {
  return {
    ...body,
    eventId: randomUUID(),
    templateId: template.id,
    orgId: template.orgId,
    now,
  } as TemplateCommand;
}

/**
 * The way a template's change is recorded, as a sandbox's is (producers/sandbox.ts
 * recordSandboxCommand): decide `command` on `loaded`, publish what it decides, wait until the read
 * model shows it, and answer the evolved state. The caller holds whatever makes it the one writer
 * of the template (the host that keeps it, under the template's lock).
 */
export async function recordTemplateCommand(
  deps: TemplateRecordDeps,
  command: TemplateCommand,
  loaded: VersionedTemplate | undefined,
): Promise<VersionedTemplate> {
  const events = decide(command, loaded?.template);
  if (events.length === 0) {
    if (!loaded) throw new Error(`${command.type} decided nothing for an unknown template`);
    return loaded;
  }
  await publishTemplateEvents(deps.producer, events);
  const template = events.reduce(evolve, loaded?.template);
  if (!template) throw new Error(`${command.type} left no template`);
  const version = (loaded?.version ?? 0) + events.length;
  if (!(await deps.readModel.waitForVersion(command.templateId, version, deps.timeoutMs)))
    throw new ReadModelBehind(command.templateId, 'template');
  return { template, version };
}
