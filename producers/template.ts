import { randomUUID } from 'node:crypto';
import { decide, type TemplateCommand, type TemplateCommandBody } from '../domain/templates/decide.ts';
import type { TemplateEvent } from '../domain/templates/events.ts';
import { evolve, type Template } from '../domain/templates/template.ts';
import { templateEventToWire } from '../schemas/events/template-mapping.ts';
import { type CommandStream, type RecordDeps, recordCommand } from './command-shell.ts';
import type { EventProducer } from './producer.ts';

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

const templateStream: CommandStream<TemplateCommand, Template, TemplateEvent> = {
  readModel: 'template',
  decide,
  evolve,
  publish: publishTemplateEvents,
  streamOf: (event) => event.templateId,
  idOf: (template) => template.id,
};

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
 * The way a template's change is recorded, through the command shell (command-shell.ts), as a
 * sandbox's is. The caller holds whatever makes it the one writer of the template (the host that
 * keeps it, under the template's lock).
 */
export async function recordTemplateCommand(
  deps: RecordDeps,
  command: TemplateCommand,
  loaded: VersionedTemplate | undefined,
): Promise<VersionedTemplate> {
  const recorded = await recordCommand(
    templateStream,
    deps,
    command,
    loaded && { state: loaded.template, version: loaded.version },
  );
  return { template: recorded.state, version: recorded.version };
}
