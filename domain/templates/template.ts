import type { TemplateEvent, TemplateSource } from './events.ts';

// A template as the decider sees it: folded from its events by `evolve`, the one function the
// Postgres projection, the sandbox host and the tests share.

/**
 * - `building`: requested; its host is making it (a recipe's build may take minutes). Sandboxes
 *   cannot be created from it yet (409 `template_not_ready`).
 * - `ready`: sandboxes may be created from it, as fast as from the base.
 * - `failed`: its recipe did not build; `failure` holds the end of its build log. Only `delete`
 *   changes it.
 * - `deleted`: its files are gone; its name is free again.
 */
export const templateStatuses = ['building', 'ready', 'failed', 'deleted'] as const;
export type TemplateStatus = (typeof templateStatuses)[number];

export interface Template {
  id: string;
  orgId: string;
  name: string;
  status: TemplateStatus;
  source: TemplateSource;
  parent: string | null;
  host: string;
  failure: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** `undefined`: no template with this id (the stream is empty). */
export type TemplateState = Template | undefined;

export function initialState(): TemplateState {
  return undefined;
}

export function evolve(state: TemplateState, event: TemplateEvent): TemplateState {
  if (event.type === 'TemplateRequested') return state ?? requested(event);
  if (!state) return state;
  const at = event.occurredAt;
  switch (event.type) {
    case 'TemplateBuilt':
      return state.status === 'building' ? { ...state, status: 'ready', updatedAt: at } : state;
    case 'TemplateFailed':
      return state.status === 'building'
        ? { ...state, status: 'failed', failure: event.failure, updatedAt: at }
        : state;
    case 'TemplateDeleted':
      return { ...state, status: 'deleted', updatedAt: at };
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}

function requested(event: Extract<TemplateEvent, { type: 'TemplateRequested' }>): Template {
  return {
    id: event.templateId,
    orgId: event.orgId,
    name: event.name,
    status: 'building',
    source: event.source,
    parent: event.parent,
    host: event.host,
    failure: null,
    createdAt: event.occurredAt,
    updatedAt: event.occurredAt,
  };
}
