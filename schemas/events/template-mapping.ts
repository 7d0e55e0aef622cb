import type { TemplateEvent, TemplateSource } from '../../domain/templates/events.ts';
import { text, type Wire, whole } from './wire.ts';

// TemplateEvent (domain) <-> orrery.template.v1.TemplateEvent (protobuf, camelCase as protobufjs
// reads it). The source is a oneof: a recipe, or the sandbox a snapshot was taken of; an empty
// parent is a template standing on the base.

function sourceToWire(source: TemplateSource): Record<string, unknown> {
  return source.kind === 'recipe'
    ? { recipe: { packages: source.recipe.packages, run: source.recipe.run } }
    : { snapshotOf: source.sandbox };
}

export function templateEventToWire(event: TemplateEvent): Record<string, unknown> {
  const envelope = {
    eventId: event.eventId,
    templateId: event.templateId,
    orgId: event.orgId,
    occurredAtMs: event.occurredAt.getTime(),
  };
  switch (event.type) {
    case 'TemplateRequested':
      return {
        ...envelope,
        templateRequested: {
          name: event.name,
          ...sourceToWire(event.source),
          parent: event.parent ?? '',
          host: event.host,
        },
      };
    case 'TemplateBuilt':
      return { ...envelope, templateBuilt: {} };
    case 'TemplateFailed':
      return { ...envelope, templateFailed: { failure: event.failure } };
    case 'TemplateDeleted':
      return { ...envelope, templateDeleted: {} };
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}

const strings = (value: unknown) => (Array.isArray(value) ? value.map(text) : []);

/** The oneof as `decodeValue` sets it; a source this code does not know is undefined. */
function sourceOf(body: Wire): TemplateSource | undefined {
  if (body.source === 'recipe') {
    const recipe = (body.recipe ?? {}) as Wire;
    return { kind: 'recipe', recipe: { packages: strings(recipe.packages), run: strings(recipe.run) } };
  }
  if (body.source === 'snapshotOf') return { kind: 'snapshot', sandbox: text(body.snapshotOf) };
  return undefined;
}

/** Decoded values come from `decodeValue` (oneofs set, longs as strings). Unknown kinds: undefined. */
export function templateEventFromWire(wire: Wire): TemplateEvent | undefined {
  const base = {
    eventId: text(wire.eventId),
    templateId: text(wire.templateId),
    orgId: text(wire.orgId),
    occurredAt: new Date(whole(wire.occurredAtMs)),
  };
  const body = (wire[String(wire.event)] ?? {}) as Wire;
  switch (wire.event) {
    case 'templateRequested': {
      const source = sourceOf(body);
      if (!source) return undefined;
      return {
        ...base,
        type: 'TemplateRequested',
        name: text(body.name),
        source,
        parent: text(body.parent) || null,
        host: text(body.host),
      };
    }
    case 'templateBuilt':
      return { ...base, type: 'TemplateBuilt' };
    case 'templateFailed':
      return { ...base, type: 'TemplateFailed', failure: text(body.failure) };
    case 'templateDeleted':
      return { ...base, type: 'TemplateDeleted' };
    default:
      return undefined;
  }
}
