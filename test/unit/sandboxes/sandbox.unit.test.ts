import { describe, expect, it } from 'vitest';
import type { SandboxEvent } from '../../../domain/sandboxes/events.ts';
import { desktopStatus, evolve, initialState } from '../../../domain/sandboxes/sandbox.ts';
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
      { idleTimeoutSeconds: 90, metadata: { team: 'web' } },
    ],
  ] as const)('%s', (_name, event, expected) => {
    expect(evolve(sandboxIn('running'), { ...base, ...event } as SandboxEvent)).toMatchObject(expected);
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
