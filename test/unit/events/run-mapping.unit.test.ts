import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../domain/runs/events.ts';
import { noNetwork } from '../../../domain/sandboxes/network.ts';
import type { UsageRecorded } from '../../../domain/usage/events.ts';
import { encodeWire, wireObjectOptions } from '../../../platform/registry.ts';
import { valueType } from '../../../schemas/events/index.ts';
import { runEventFromWire, runEventToWire } from '../../../schemas/events/run-mapping.ts';
import type { StreamName } from '../../../schemas/events/topics.ts';
import { usageFromWire, usageToWire } from '../../../schemas/events/usage-mapping.ts';

// Run events, and a run's metered stretch on the usage stream, through their mappings, protobuf
// bytes and back, as producers and consumers do it.
function throughProtobuf(stream: StreamName, wire: Record<string, unknown>): Record<string, unknown> {
  const type = valueType(stream);
  return type.toObject(type.decode(encodeWire(type, wire)), wireObjectOptions);
}

const at = new Date('2026-11-24T10:00:00.123Z');
const run = { eventId: 'e', runId: 'run_1', orgId: 'o', occurredAt: at };

describe('run events round-trip through protobuf', () => {
  it.each<RunEvent>([
    {
      ...run,
      type: 'RunPlaced',
      name: 'train',
      size: 'standard',
      command: 'python train.py',
      envNames: ['A', 'TOKEN'],
      files: [{ path: 'src/train.py', sizeBytes: 1234 }],
      ceilingMicrodollars: 5_000_000,
      placedBy: { kind: 'key', keyId: 'key_1', personId: 'per_1' },
      host: 'host_0a1b2c3d4e5f',
      network: { egress: 'open', allow: ['pypi.org', '151.101.0.0/16'], deny: ['198.51.100.7/32'] },
      template: 'tpl_0a1b2c3d4e5f6a7b8c9d0e1f',
    },
    {
      ...run,
      type: 'RunPlaced',
      name: 'bare',
      size: 'small',
      command: 'true',
      envNames: [],
      files: [],
      ceilingMicrodollars: 20,
      placedBy: { kind: 'key', keyId: 'key_1', personId: null },
      host: 'local',
      network: { egress: 'none', allow: [], deny: [] },
      template: null,
    },
    {
      ...run,
      type: 'RunPlaced',
      name: 'argv',
      size: 'small',
      command: ['python3', '-c', 'print("a b")', '$HOME', '*', 'two\nlines', ''],
      envNames: [],
      files: [],
      ceilingMicrodollars: 20,
      placedBy: { kind: 'key', keyId: 'key_1', personId: null },
      host: 'local',
      network: { egress: 'open', allow: [], deny: [] },
      template: null,
    },
    { ...run, type: 'RunStarted' },
    { ...run, type: 'RunOutputAppended', stream: 'stderr', seq: 12, text: 'é\n' },
    { ...run, type: 'RunMetered', meteredSeconds: 90 },
    { ...run, type: 'RunResultStored', result: '{"metrics":{"loss":0.1}}' },
    { ...run, type: 'RunResultRefused', reason: 'not an object' },
    { ...run, type: 'RunFinished', exitCode: 0, failure: null, billedSeconds: 3 },
    { ...run, type: 'RunFinished', exitCode: 3, failure: null, billedSeconds: 3 },
    { ...run, type: 'RunFinished', exitCode: null, failure: 'could not start', billedSeconds: 0 },
    { ...run, type: 'RunStopped', stoppedBy: { kind: 'person', personId: 'per_2' }, billedSeconds: 7 },
    { ...run, type: 'RunCeilingReached', billedSeconds: 5 },
  ])('run event $type', (event) => {
    expect(runEventFromWire(throughProtobuf('run', runEventToWire(event)))).toEqual(event);
  });

  const placed: RunEvent = {
    ...run,
    type: 'RunPlaced',
    name: 'old',
    size: 'small',
    command: 'true',
    envNames: [],
    files: [],
    ceilingMicrodollars: 20,
    placedBy: { kind: 'key', keyId: 'key_1', personId: null },
    host: 'host_a',
    network: { egress: 'open', allow: [], deny: [] },
    template: null,
  };

  it('reads a RunPlaced from before sandboxes had a network (no network field) as egress none, not open', () => {
    const wire = runEventToWire(placed) as { runPlaced: Record<string, unknown> };
    delete wire.runPlaced.network;
    expect(runEventFromWire(throughProtobuf('run', wire))).toEqual({ ...placed, network: noNetwork });
  });

  it('reads a RunPlaced from before argument vectors (no argv) as a shell command line', () => {
    const wire = runEventToWire({ ...placed, command: 'make && ./test' }) as {
      runPlaced: Record<string, unknown>;
    };
    expect(wire.runPlaced).not.toHaveProperty('argv');
    expect(runEventFromWire(throughProtobuf('run', wire))).toEqual({ ...placed, command: 'make && ./test' });
  });

  it('gives a reader from before vectors, which knows only `command`, the vector quoted for /bin/sh', () => {
    const wire = runEventToWire({ ...placed, command: ['sh', '-c', "echo 'hi'"] }) as {
      runPlaced: Record<string, unknown>;
    };
    delete wire.runPlaced.argv;
    expect(runEventFromWire(throughProtobuf('run', wire))).toEqual({
      ...placed,
      command: `sh -c 'echo '\\''hi'\\'''`,
    });
  });

  it('does not guess an egress it does not know: the event is left undecoded (dead-lettered)', () => {
    const wire = runEventToWire(placed) as { runPlaced: Record<string, unknown> };
    wire.runPlaced.network = { egress: 'closed', allow: [], deny: [] };
    expect(runEventFromWire(throughProtobuf('run', wire))).toBeUndefined();
  });

  it('a metered stretch on the usage stream keeps its seconds', () => {
    const event: UsageRecorded = {
      type: 'UsageRecorded',
      eventId: 'e',
      orgId: 'o',
      occurredAt: at,
      requestId: 'run_1:30',
      keyId: 'key_1',
      model: 'run:small',
      endpoint: 'runs',
      inputTokens: 0,
      outputTokens: 0,
      fallback: false,
      latencyMs: 0,
      seconds: 30,
    };
    expect(usageFromWire(throughProtobuf('usage', usageToWire(event)))).toEqual(event);
  });
});
