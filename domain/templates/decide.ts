import type { CommandBody } from '../command-body.ts';
import { requireRunning } from '../sandboxes/decide.ts';
import { invalidRequest, SandboxError, sandboxLost } from '../sandboxes/errors.ts';
import type { SandboxState } from '../sandboxes/sandbox.ts';
import type { Recipe, TemplateEvent } from './events.ts';
import type { Template, TemplateState } from './template.ts';

// Commands on a template, decided against its current state (Emmett's decider shape, as
// domain/runs/decide.ts). Ids, time and what the shell looked up (is the name taken? what stands
// on the template?) arrive on the command, so the decision is pure.
//
// A template is made on one sandbox host and lives there: a recipe's on the host placement chose
// (its build runs in a throwaway sandbox there), a snapshot on its sandbox's host, standing on the
// template that sandbox was made from. The host reports the end of the making and never refuses a
// report: one that comes late or twice decides nothing. Deleting a deleted template decides
// nothing, as destroying a deleted sandbox does.

interface CommandMeta {
  eventId: string;
  templateId: string;
  orgId: string;
  now: Date;
}

export type TemplateCommand =
  | (CommandMeta & {
      type: 'CreateFromRecipe';
      name: string;
      nameTaken: boolean;
      recipe: Recipe;
      /** The sandbox host placement chose for the build. */
      host: string;
    })
  | (CommandMeta & {
      type: 'SnapshotSandbox';
      name: string;
      nameTaken: boolean;
      /** The sandbox whose files it takes, as the read model shows it. */
      sandbox: SandboxState;
    })
  | (CommandMeta & { type: 'ReportBuilt' })
  | (CommandMeta & { type: 'ReportFailed'; failure: string })
  | (CommandMeta & {
      type: 'DeleteTemplate';
      /** What stands on it, as the read model shows it: sandboxes and templates, in words. */
      usedBy: string[];
    });

/** A command without what the shell adds (ids, org, time), one per kind. */
export type TemplateCommandBody = CommandBody<TemplateCommand, CommandMeta>;

const base = (command: CommandMeta) => ({
  eventId: command.eventId,
  templateId: command.templateId,
  orgId: command.orgId,
  occurredAt: command.now,
});

type Decision<T extends TemplateCommand['type']> = (
  command: Extract<TemplateCommand, { type: T }>,
  state: TemplateState,
) => TemplateEvent[];

/** The template's `not_found`, with words of its own (the code's default speaks of sandboxes). */
export const templateNotFound = (param?: string) =>
  new SandboxError('not_found', {
    message:
      'No template with this id or name in the org: check it, or list templates with GET /api/templates.',
    ...(param === undefined ? {} : { param }),
  });

/** Any template not deleted; otherwise `not_found`. */
export function requireExisting(state: TemplateState): Template {
  if (!state || state.status === 'deleted') throw templateNotFound();
  return state;
}

/**
 * What a sandbox (or a run's) may be created from: a ready template, refused otherwise before
 * anything is made: unknown or deleted 404, building or failed 409 `template_not_ready` naming it.
 */
export function requireReady(state: TemplateState): Template {
  if (!state || state.status === 'deleted') throw templateNotFound('template');
  if (state.status === 'ready') return state;
  const named = `\`${state.name}\` (${state.id})`;
  const message =
    state.status === 'building'
      ? `The template ${named} is still building: wait until its status is \`ready\` (GET /api/templates/${state.name}), then retry.`
      : `The template ${named} failed to build, so nothing can be made from it: read its \`failure\`, fix the recipe, and build another.`;
  throw new SandboxError('template_not_ready', { message, param: 'template' });
}

function refuseTakenName(name: string, taken: boolean): void {
  if (taken)
    throw invalidRequest(
      'name',
      `The name \`${name}\` is taken by another template in this org: choose another.`,
    );
}

/** A request decided twice for the same id (a retried command) decides nothing the second time. */
const createFromRecipe: Decision<'CreateFromRecipe'> = (command, state) => {
  if (state) return [];
  refuseTakenName(command.name, command.nameTaken);
  const source = { kind: 'recipe' as const, recipe: command.recipe };
  return [
    {
      ...base(command),
      type: 'TemplateRequested',
      name: command.name,
      source,
      parent: null,
      host: command.host,
    },
  ];
};

/** A running sandbox only (its files are read with it frozen for a moment); on its host, over its template. */
const snapshotSandbox: Decision<'SnapshotSandbox'> = (command, state) => {
  if (state) return [];
  const sandbox = command.sandbox;
  if (sandbox?.status === 'lost') throw sandboxLost();
  const running = requireRunning(sandbox);
  refuseTakenName(command.name, command.nameTaken);
  return [
    {
      ...base(command),
      type: 'TemplateRequested',
      name: command.name,
      source: { kind: 'snapshot', sandbox: running.id },
      parent: running.template,
      host: running.host,
    },
  ];
};

const reportBuilt: Decision<'ReportBuilt'> = (command, state) =>
  state?.status === 'building' ? [{ ...base(command), type: 'TemplateBuilt' }] : [];

const reportFailed: Decision<'ReportFailed'> = (command, state) =>
  state?.status === 'building'
    ? [{ ...base(command), type: 'TemplateFailed', failure: command.failure }]
    : [];

/**
 * Refused while building (its host is still writing its files) and while anything stands on it;
 * a repeat decides nothing.
 */
const deleteTemplate: Decision<'DeleteTemplate'> = (command, state) => {
  if (!state) throw templateNotFound();
  if (state.status === 'deleted') return [];
  if (state.status === 'building')
    throw new SandboxError('template_not_ready', {
      message: `The template \`${state.name}\` (${state.id}) is still building: delete it once it is ready or failed.`,
    });
  if (command.usedBy.length > 0) throw templateInUse(state, command.usedBy);
  return [{ ...base(command), type: 'TemplateDeleted' }];
};

/** `template_in_use` (409) naming what stands on the template. */
export function templateInUse(template: Pick<Template, 'id' | 'name'>, users: string[]): SandboxError {
  const them = users.length === 1 ? 'it' : 'them';
  return new SandboxError('template_in_use', {
    message: `The template \`${template.name}\` (${template.id}) is what ${users.join(', ')} stand${users.length === 1 ? 's' : ''} on: destroy or delete ${them} first.`,
  });
}

export function decide(command: TemplateCommand, state: TemplateState): TemplateEvent[] {
  switch (command.type) {
    case 'CreateFromRecipe':
      return createFromRecipe(command, state);
    case 'SnapshotSandbox':
      return snapshotSandbox(command, state);
    case 'ReportBuilt':
      return reportBuilt(command, state);
    case 'ReportFailed':
      return reportFailed(command, state);
    case 'DeleteTemplate':
      return deleteTemplate(command, state);
    default: {
      const unhandled: never = command;
      return unhandled;
    }
  }
}
