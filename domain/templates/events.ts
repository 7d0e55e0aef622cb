// The template stream's facts (topic orrery.template.v1, keyed by template id), in the past tense
// (issue 48: a template is what a sandbox starts from instead of the bare base).
//
// Why these and no more:
// - `TemplateRequested`: a template was asked for, by a recipe (Debian packages and commands, built
//   in the background) or as a snapshot of a sandbox's files (made at once). It names the sandbox
//   host that makes and keeps it, since its files live there and nowhere else, and the template it
//   stands on (`parent`: a snapshot of a sandbox made from a template keeps that one's layers).
// - `TemplateBuilt` / `TemplateFailed`: the host reports the end of the making; a failed one
//   carries the tail of its build log, which is what a person reads to fix the recipe.
// - `TemplateDeleted`: its files are gone from its host; its name is free again.

/** Debian packages and RUN-like commands (requests.ts checks them). */
export interface Recipe {
  packages: string[];
  run: string[];
}

/** What a template is made from. */
export type TemplateSource = { kind: 'recipe'; recipe: Recipe } | { kind: 'snapshot'; sandbox: string };

export const templateSourceKinds = ['recipe', 'snapshot'] as const;

interface EventBase {
  eventId: string;
  templateId: string;
  orgId: string;
  occurredAt: Date;
}

export type TemplateEvent =
  | (EventBase & {
      type: 'TemplateRequested';
      name: string;
      source: TemplateSource;
      /** The template its files stand on (a snapshot of a sandbox made from one), or null: the base. */
      parent: string | null;
      /** The sandbox host that makes it and keeps its files (domain/sandboxes/hosts.ts). */
      host: string;
    })
  | (EventBase & { type: 'TemplateBuilt' })
  | (EventBase & { type: 'TemplateFailed'; failure: string })
  | (EventBase & { type: 'TemplateDeleted' });

export type TemplateEventType = TemplateEvent['type'];
