import { describe, expect, it } from 'vitest';
import type { SandboxEvent } from '../../../domain/sandboxes/events.ts';
import { desktopStatus, evolve, initialState } from '../../../domain/sandboxes/sandbox.ts';
import { encodeWire, wireObjectOptions } from '../../../platform/registry.ts';
import { valueType } from '../../../schemas/events/index.ts';
import { sandboxEventFromWire, sandboxEventToWire } from '../../../schemas/events/sandbox-mapping.ts';
import { at, sandboxIn } from './given.ts';

const base = { eventId: 'ev_x', sandboxId: 'sbx_source', orgId: 'org_1', occurredAt: at(50) };

describe('evolve', () => {
  it('ignores every event but SandboxCreated on an empty stream', () => {
    const events: SandboxEvent[] = [
      { ...base, type: 'SandboxStarted' },
      { ...base, type: 'SandboxStopped', reason: 'requested' },
      { ...base, type: 'SandboxDestroyed' },
      { ...base, type: 'DesktopStopped' },
    ];
    expect(events.reduce(evolve, initialState())).toBeUndefined();
  });

  it('keeps the first SandboxCreated when one is delivered twice', () => {
    const state = sandboxIn('running');
    const again = evolve(state, {
      ...base,
      type: 'SandboxCreated',
      name: 'other',
      size: 'xl',
      metadata: {},
      idleTimeoutSeconds: 0,
      idempotencyKey: null,
      forkedFrom: null,
      hasSecrets: false,
      host: 'host_b',
      network: { egress: 'none', allow: [], deny: [] },
      template: null,
    });
    expect(again).toBe(state);
  });

  it.each([
    [
      'SandboxStopped',
      { type: 'SandboxStopped', reason: 'idle_timeout' },
      { status: 'stopped', updatedAt: at(50) },
    ],
    ['SandboxUsed', { type: 'SandboxUsed' }, { lastUsedAt: at(50) }],
    ['SandboxSecretsSet', { type: 'SandboxSecretsSet' }, { hasSecrets: true }],
    ['SandboxDestroyed', { type: 'SandboxDestroyed' }, { status: 'deleted' }],
    [
      'SandboxUpdated',
      { type: 'SandboxUpdated', idleTimeoutSeconds: 90 },
      { idleTimeoutSeconds: 90, metadata: { team: 'web' }, network: { egress: 'open', allow: [], deny: [] } },
    ],
    [
      'SandboxUpdated with a network',
      { type: 'SandboxUpdated', network: { egress: 'open', allow: [], deny: ['example.com'] } },
      { network: { egress: 'open', allow: [], deny: ['example.com'] }, metadata: { team: 'web' } },
    ],
  ] as const)('%s', (_name, event, expected) => {
    expect(evolve(sandboxIn('running'), { ...base, ...event } as SandboxEvent)).toMatchObject(expected);
  });
});

describe('a sandbox created before sandboxes had a network', () => {
  it('has none (loopback only), as it had: its SandboxCreated, without a policy, is read so', () => {
    const created: SandboxEvent = {
      ...base,
      type: 'SandboxCreated',
      name: 'old',
      size: 'small',
      metadata: {},
      idleTimeoutSeconds: 0,
      idempotencyKey: null,
      forkedFrom: null,
      hasSecrets: false,
      host: 'local',
      network: { egress: 'open', allow: [], deny: [] },
      template: null,
    };
    const wire = sandboxEventToWire(created) as { sandboxCreated: Record<string, unknown> };
    delete wire.sandboxCreated.network;
    const type = valueType('sandbox');
    const decoded = sandboxEventFromWire(
      type.toObject(type.decode(encodeWire(type, wire)), wireObjectOptions),
    );
    const state = [decoded!, { ...base, type: 'SandboxStarted' } as const].reduce(evolve, initialState());
    expect(state).toMatchObject({ status: 'running', network: { egress: 'none', allow: [], deny: [] } });
  });
});

describe('desktopStatus', () => {
  it.each([
    ['absent', undefined, { running: false }],
    ['starting', { status: 'starting', size: { width: 800, height: 600 } }, { running: false }],
    [
      'running',
      {
        status: 'running',
        size: { width: 800, height: 600 },
        display: ':1',
        vncPort: 5901,
        devtools: 'http://127.0.0.1:9222',
        browser: 'chromium 126',
      },
      {
        running: true,
        size: '800x600',
        display: ':1',
        vnc_port: 5901,
        devtools: 'http://127.0.0.1:9222',
        browser: 'chromium 126',
      },
    ],
  ] as const)('%s', (_name, desktop, expected) => {
    expect(desktopStatus(desktop)).toEqual(expected);
  });
});
