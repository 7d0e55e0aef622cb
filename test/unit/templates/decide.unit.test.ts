import { describe, expect, it } from 'vitest';
import { SandboxError } from '../../../domain/sandboxes/errors.ts';
import type { SandboxState } from '../../../domain/sandboxes/sandbox.ts';
import {
  decide,
  requireReady,
  type TemplateCommand,
  type TemplateCommandBody,
} from '../../../domain/templates/decide.ts';
import { evolve, type TemplateState, type TemplateStatus } from '../../../domain/templates/template.ts';
import { sandboxIn } from '../sandboxes/given.ts';

// The template decider (domain/templates/decide.ts, issue 48): a template's life from its request
// to ready, failed or deleted; names; what a snapshot takes from its sandbox; the refusals of a
// delete and of a sandbox made from a template that is not ready.

const t0 = new Date('2026-12-07T12:00:00.000Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
let count = 0;
const command = (body: TemplateCommandBody, now = t0): TemplateCommand =>
  ({ ...body, eventId: `ev_${++count}`, templateId: 'tpl_1', orgId: 'org_1', now }) as TemplateCommand;

const recipe = { packages: ['jq'], run: ['echo hi > /etc/hi'] };
const fromRecipe = (overrides: Partial<Extract<TemplateCommandBody, { type: 'CreateFromRecipe' }>> = {}) =>
  ({
    type: 'CreateFromRecipe',
    name: 'tools',
    nameTaken: false,
    recipe,
    host: 'host_a',
    ...overrides,
  }) as const;

function given(bodies: TemplateCommandBody[]): TemplateState {
  return bodies.reduce<TemplateState>(
    (state, body, i) => decide(command(body, at(i)), state).reduce(evolve, state),
    undefined,
  );
}

const paths: Record<TemplateStatus, TemplateCommandBody[]> = {
  building: [fromRecipe()],
  ready: [fromRecipe(), { type: 'ReportBuilt' }],
  failed: [fromRecipe(), { type: 'ReportFailed', failure: 'E: Unable to locate package jq' }],
  deleted: [fromRecipe(), { type: 'ReportBuilt' }, { type: 'DeleteTemplate', usedBy: [] }],
};
const templateIn = (status: TemplateStatus) => given(paths[status]);

function refusal(act: () => unknown): SandboxError {
  try {
    act();
  } catch (error) {
    expect(error).toBeInstanceOf(SandboxError);
    return error as SandboxError;
  }
  throw new Error('expected a refusal');
}

describe('from a recipe', () => {
  it('is requested building on the host placement chose, standing on the base', () => {
    const events = decide(command(fromRecipe()), undefined);
    expect(events).toEqual([
      {
        eventId: expect.any(String),
        templateId: 'tpl_1',
        orgId: 'org_1',
        occurredAt: t0,
        type: 'TemplateRequested',
        name: 'tools',
        source: { kind: 'recipe', recipe },
        parent: null,
        host: 'host_a',
      },
    ]);
    expect(events.reduce(evolve, undefined)).toMatchObject({
      status: 'building',
      failure: null,
      host: 'host_a',
    });
  });

  it('refuses a name another template of the org holds, naming the field', () => {
    const refused = refusal(() => decide(command(fromRecipe({ nameTaken: true })), undefined));
    expect(refused).toMatchObject({ code: 'invalid_request', param: 'name', status: 422 });
    expect(refused.message).toContain('`tools` is taken');
  });

  it('decides nothing when the same request comes again (a retried command)', () => {
    expect(decide(command(fromRecipe()), templateIn('building'))).toEqual([]);
  });

  it('becomes ready when built, and failed with the end of its log when not', () => {
    expect(templateIn('ready')).toMatchObject({ status: 'ready', failure: null, updatedAt: at(1) });
    expect(templateIn('failed')).toMatchObject({
      status: 'failed',
      failure: 'E: Unable to locate package jq',
    });
  });

  it.each(['ready', 'failed', 'deleted'] as const)('takes no late report once %s', (status) => {
    const state = templateIn(status);
    expect(decide(command({ type: 'ReportBuilt' }), state)).toEqual([]);
    expect(decide(command({ type: 'ReportFailed', failure: 'late' }), state)).toEqual([]);
  });
});

describe('from a sandbox', () => {
  const snapshot = (sandbox: SandboxState) =>
    ({ type: 'SnapshotSandbox', name: 'app-v1', nameTaken: false, sandbox }) as const;

  it("lives on the sandbox's host and stands on the sandbox's template", () => {
    const sandbox = sandboxIn('running', { host: 'host_b', template: 'tpl_base' });
    const [event] = decide(command(snapshot(sandbox)), undefined);
    expect(event).toMatchObject({
      type: 'TemplateRequested',
      name: 'app-v1',
      source: { kind: 'snapshot', sandbox: sandbox?.id },
      parent: 'tpl_base',
      host: 'host_b',
    });
  });

  it.each([
    ['none', 'not_found'],
    ['starting', 'not_running'],
    ['stopped', 'not_running'],
    ['lost', 'not_running'],
    ['deleted', 'not_found'],
  ] as const)('refuses a sandbox that is %s (%s)', (status, code) => {
    expect(refusal(() => decide(command(snapshot(sandboxIn(status))), undefined)).code).toBe(code);
  });

  it('refuses a taken name', () => {
    const body = { ...snapshot(sandboxIn('running')), nameTaken: true };
    expect(refusal(() => decide(command(body), undefined))).toMatchObject({ param: 'name' });
  });
});

describe('delete', () => {
  it('deletes a ready or failed template nothing stands on', () => {
    for (const status of ['ready', 'failed'] as const) {
      const events = decide(command({ type: 'DeleteTemplate', usedBy: [] }), templateIn(status));
      expect(events.map((event) => event.type)).toEqual(['TemplateDeleted']);
      expect(events.reduce(evolve, templateIn(status))?.status).toBe('deleted');
    }
  });

  it('refuses while something stands on it, naming each (409 template_in_use)', () => {
    const usedBy = ['sandbox web (sbx_1)', 'template app-v2 (tpl_2)'];
    const refused = refusal(() => decide(command({ type: 'DeleteTemplate', usedBy }), templateIn('ready')));
    expect(refused).toMatchObject({ code: 'template_in_use', status: 409 });
    expect(refused.message).toContain('sandbox web (sbx_1), template app-v2 (tpl_2) stand on');
  });

  it('refuses while building: its host is still writing its files', () => {
    const refused = refusal(() =>
      decide(command({ type: 'DeleteTemplate', usedBy: [] }), templateIn('building')),
    );
    expect(refused).toMatchObject({ code: 'template_not_ready', status: 409 });
  });

  it('decides nothing for a deleted one, and refuses an unknown one', () => {
    expect(decide(command({ type: 'DeleteTemplate', usedBy: ['x'] }), templateIn('deleted'))).toEqual([]);
    expect(refusal(() => decide(command({ type: 'DeleteTemplate', usedBy: [] }), undefined)).code).toBe(
      'not_found',
    );
  });
});

describe('requireReady: what a sandbox may be made from', () => {
  it('is a ready template', () => {
    expect(requireReady(templateIn('ready'))).toMatchObject({ id: 'tpl_1', status: 'ready' });
  });

  it.each(['building', 'failed'] as const)('refuses one %s with 409 naming it', (status) => {
    const refused = refusal(() => requireReady(templateIn(status)));
    expect(refused).toMatchObject({ code: 'template_not_ready', status: 409, param: 'template' });
    expect(refused.message).toContain('`tools` (tpl_1)');
  });

  it('refuses an unknown or deleted one with 404 on `template`', () => {
    for (const state of [undefined, templateIn('deleted')])
      expect(refusal(() => requireReady(state))).toMatchObject({
        code: 'not_found',
        status: 404,
        param: 'template',
      });
  });
});
