import { describe, expect, it } from 'vitest';
import type { TemplateEvent } from '../../../domain/templates/events.ts';
import { encodeWire, wireObjectOptions } from '../../../platform/registry.ts';
import { valueType } from '../../../schemas/events/index.ts';
import { templateEventFromWire, templateEventToWire } from '../../../schemas/events/template-mapping.ts';

// Template events (issue 48) through their mapping, protobuf bytes and back, as producers and
// consumers do it; and the template a sandbox and a run were made from, on their own streams.

function throughProtobuf(wire: Record<string, unknown>): Record<string, unknown> {
  const type = valueType('template');
  return type.toObject(type.decode(encodeWire(type, wire)), wireObjectOptions);
}

const at = new Date('2026-12-07T10:00:00.123Z');
const template = { eventId: 'e', templateId: 'tpl_0a1b2c3d4e5f6a7b8c9d0e1f', orgId: 'o', occurredAt: at };

describe('template events round-trip through protobuf', () => {
  it.each<TemplateEvent>([
    {
      ...template,
      type: 'TemplateRequested',
      name: 'py-tools',
      source: { kind: 'recipe', recipe: { packages: ['jq', 'python3'], run: ['pip install x', 'echo é'] } },
      parent: null,
      host: 'host_0a1b2c3d4e5f',
    },
    {
      ...template,
      type: 'TemplateRequested',
      name: 'only-commands',
      source: { kind: 'recipe', recipe: { packages: [], run: ['true'] } },
      parent: null,
      host: 'local',
    },
    {
      ...template,
      type: 'TemplateRequested',
      name: 'app-v1',
      source: { kind: 'snapshot', sandbox: 'sbx_0a1b2c3d4e5f6a7b8c9d0e1f' },
      parent: 'tpl_ffffffffffffffffffffffff',
      host: 'host_b',
    },
    { ...template, type: 'TemplateBuilt' },
    { ...template, type: 'TemplateFailed', failure: 'E: Unable to locate package no-such-package\n' },
    { ...template, type: 'TemplateDeleted' },
  ])('$type', (event) => {
    expect(templateEventFromWire(throughProtobuf(templateEventToWire(event)))).toEqual(event);
  });

  it('leaves a request without a source undecoded (dead-lettered) rather than guess one', () => {
    const wire = templateEventToWire({
      ...template,
      type: 'TemplateRequested',
      name: 'x',
      source: { kind: 'snapshot', sandbox: 'sbx_1' },
      parent: null,
      host: 'h',
    }) as { templateRequested: Record<string, unknown> };
    delete wire.templateRequested.snapshotOf;
    expect(templateEventFromWire(throughProtobuf(wire))).toBeUndefined();
  });
});
