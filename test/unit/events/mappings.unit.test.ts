import { describe, expect, it } from 'vitest';
import type { OrgEvent } from '../../../domain/orgs/events.ts';
import type { PersonEvent } from '../../../domain/people/events.ts';
import type { SandboxEvent } from '../../../domain/sandboxes/events.ts';
import { legacyHostId } from '../../../domain/sandboxes/hosts.ts';
import { noNetwork } from '../../../domain/sandboxes/network.ts';
import type { ReceivedTrace, SpanEvent } from '../../../domain/tracing/events.ts';
import type { UsageRecorded } from '../../../domain/usage/events.ts';
import { encodeWire, framedPayload, frameHeader, wireObjectOptions } from '../../../platform/registry.ts';
import { valueType } from '../../../schemas/events/index.ts';
import { orgEventFromWire, orgEventToWire } from '../../../schemas/events/org-mapping.ts';
import { personEventFromWire, personEventToWire } from '../../../schemas/events/person-mapping.ts';
import { sandboxEventFromWire, sandboxEventToWire } from '../../../schemas/events/sandbox-mapping.ts';
import { encodeSpanEvent } from '../../../schemas/events/spans-encode.ts';
import { spanEventFromWire } from '../../../schemas/events/spans-mapping.ts';
import type { StreamName } from '../../../schemas/events/topics.ts';
import { usageFromWire, usageToWire } from '../../../schemas/events/usage-mapping.ts';
import { publishedSpan } from '../../harness/spans.ts';

// Each event through its mapping, protobuf bytes and back, as producers and consumers do it.
function throughProtobuf(stream: StreamName, wire: Record<string, unknown>): Record<string, unknown> {
  const type = valueType(stream);
  const bytes = encodeWire(type, wire);
  return type.toObject(type.decode(bytes), wireObjectOptions);
}

/** A span event as the producer writes it (spans-encode.ts), read by protobufjs as consumers read it. */
function spanEventThroughBytes(event: SpanEvent): Record<string, unknown> {
  const type = valueType('spans');
  const bytes = encodeSpanEvent(event, frameHeader(1));
  return type.toObject(type.decode(bytes.subarray(framedPayload(bytes))), wireObjectOptions);
}

const at = new Date('2026-11-22T10:00:00.123Z');
// Fields away from their defaults (a span of kind generation, empty apart from null, the largest
// nanosecond time), so a mapping that drops or converts one shows.
const span = publishedSpan({
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  name: 'chat gpt-4o',
  kind: 'generation',
  otelKind: 3,
  startTimeUnixNano: 1_763_805_600_123_456_789n,
  endTimeUnixNano: 18_446_744_073_709_551_615n,
  statusCode: 2,
  statusMessage: 'boom',
  model: 'gpt-4o',
  inputTokens: 12,
  outputTokens: 0,
  input: '{"messages":[]}',
  inputTruncated: true,
  sessionId: '',
  serviceName: 'svc',
  attributes: '{"a":1}',
  resourceAttributes: '{"service.name":"svc"}',
  scopeName: 'scope',
  scopeVersion: '1.0',
  redactedCount: 2,
  sizeBytes: 999,
});

describe('event mappings round-trip through protobuf', () => {
  it.each<OrgEvent>([
    { type: 'OrgCreated', eventId: 'e', orgId: 'o', occurredAt: at, name: 'Acme' },
    {
      type: 'ApiKeyCreated',
      eventId: 'e',
      orgId: 'o',
      occurredAt: at,
      keyId: 'k',
      name: 'n',
      keyHash: 'h',
      keyPrefix: 'p',
      scopes: ['traces:write', 'sandboxes:write'],
      createdBy: '',
    },
    {
      type: 'ApiKeyCreated',
      eventId: 'e',
      orgId: 'o',
      occurredAt: at,
      keyId: 'k',
      name: 'n',
      keyHash: 'h',
      keyPrefix: 'p',
      scopes: ['inference:invoke'],
      createdBy: 'person_1',
    },
    { type: 'ApiKeyRevoked', eventId: 'e', orgId: 'o', occurredAt: at, keyId: 'k' },
    {
      type: 'CreditGranted',
      eventId: 'e',
      orgId: 'o',
      occurredAt: at,
      grantId: 'g',
      amountCents: 12_345,
      reason: 'r',
    },
    { type: 'TracingEnabled', eventId: 'e', orgId: 'o', occurredAt: at },
    { type: 'TracingRequested', eventId: 'e', orgId: 'o', occurredAt: at, personId: 'person_1' },
    {
      type: 'ChargePosted',
      eventId: 'e',
      orgId: 'o',
      occurredAt: at,
      chargeId: 'chg_1',
      model: 'm',
      day: '2026-11-22',
      cents: 9_007_199_254_740_991,
    },
    { type: 'MemberAdded', eventId: 'e', orgId: 'o', occurredAt: at, personId: 'person_1', role: 'owner' },
    { type: 'MemberAdded', eventId: 'e', orgId: 'o', occurredAt: at, personId: 'person_2', role: 'member' },
    { type: 'MemberRemoved', eventId: 'e', orgId: 'o', occurredAt: at, personId: 'person_2' },
    {
      type: 'InvitationCreated',
      eventId: 'e',
      orgId: 'o',
      occurredAt: at,
      invitationId: 'inv_1',
      email: 'ada@example.com',
      role: 'member',
      secretHash: 'a'.repeat(64),
      invitedBy: 'person_1',
      expiresAt: new Date('2026-11-29T10:00:00.456Z'),
    },
    {
      type: 'InvitationCreated',
      eventId: 'e',
      orgId: 'o',
      occurredAt: at,
      invitationId: 'inv_2',
      email: 'grace@example.com',
      role: 'owner',
      secretHash: 'b'.repeat(64),
      invitedBy: '',
      expiresAt: new Date('2026-11-23T00:00:00Z'),
    },
    {
      type: 'InvitationAccepted',
      eventId: 'e',
      orgId: 'o',
      occurredAt: at,
      invitationId: 'inv_1',
      personId: 'person_3',
    },
    { type: 'InvitationRevoked', eventId: 'e', orgId: 'o', occurredAt: at, invitationId: 'inv_2' },
    {
      type: 'ModelPriceSet',
      eventId: 'e',
      orgId: 'o',
      occurredAt: at,
      model: 'openai/GPT-4o',
      usdPerMillion: { input: 2.5, output: 10 },
      setBy: 'person_1',
    },
    // Every kind, a zero among them (a kind set to 0 is not one left out), fractions a double
    // holds only approximately, and an operator's ('').
    {
      type: 'ModelPriceSet',
      eventId: 'e',
      orgId: 'o',
      occurredAt: at,
      model: 'm',
      usdPerMillion: { input: 0.075, output: 0.3, cached_input: 0, reasoning: 1e-7 },
      setBy: '',
    },
    {
      type: 'ModelPriceRemoved',
      eventId: 'e',
      orgId: 'o',
      occurredAt: at,
      model: 'GPT-4o',
      removedBy: 'person_1',
    },
  ])('org event $type', (event) => {
    expect(orgEventFromWire(throughProtobuf('org', orgEventToWire(event)))).toEqual(event);
  });

  it("reads a key created before created_by existed as an operator's", () => {
    const wire = orgEventToWire({
      type: 'ApiKeyCreated',
      eventId: 'e',
      orgId: 'o',
      occurredAt: at,
      keyId: 'k',
      name: 'n',
      keyHash: 'h',
      keyPrefix: 'p',
      scopes: ['traces:write'],
      createdBy: 'person_1',
    });
    // The bytes an earlier producer wrote: the same message without field 6.
    const { createdBy: _, ...before } = wire.apiKeyCreated as Record<string, unknown>;
    const decoded = orgEventFromWire(throughProtobuf('org', { ...wire, apiKeyCreated: before }));
    expect(decoded).toMatchObject({ type: 'ApiKeyCreated', keyId: 'k', createdBy: '' });
  });

  it('does not guess a role it does not know: the event is left undecoded (dead-lettered)', () => {
    const envelope = { eventId: 'e', orgId: 'o', occurredAtMs: at.getTime() };
    for (const wire of [
      { ...envelope, memberAdded: { personId: 'person_1', role: 'ROLE_UNSPECIFIED' } },
      { ...envelope, invitationCreated: { invitationId: 'inv_1', email: 'a@b.c', role: 'ROLE_UNSPECIFIED' } },
    ])
      expect(orgEventFromWire(throughProtobuf('org', wire))).toBeUndefined();
    // The same messages with a role decode.
    expect(
      orgEventFromWire(
        throughProtobuf('org', { ...envelope, memberAdded: { personId: 'p', role: 'ROLE_OWNER' } }),
      ),
    ).toMatchObject({ type: 'MemberAdded', role: 'owner' });
  });

  it.each<PersonEvent>([
    {
      type: 'PersonSignedUp',
      eventId: 'e',
      personId: 'person_1',
      occurredAt: at,
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g',
    },
    {
      type: 'PasswordChanged',
      eventId: 'e',
      personId: 'person_1',
      occurredAt: at,
      passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$bmV3c2FsdA$bmV3aGFzaA',
    },
  ])('person event $type', (event) => {
    expect(personEventFromWire(throughProtobuf('person', personEventToWire(event)))).toEqual(event);
  });

  const sandbox = { eventId: 'e', sandboxId: 'sbx_1', orgId: 'o', occurredAt: at };
  it.each<SandboxEvent>([
    {
      ...sandbox,
      type: 'SandboxCreated',
      name: 'sb-0a1b2c',
      size: 'xl',
      metadata: { team: 'web', 'env.name': '' },
      idleTimeoutSeconds: 604_800,
      idempotencyKey: 'retry-1',
      forkedFrom: null,
      hasSecrets: false,
      host: 'host_0a1b2c3d4e5f',
      network: {
        egress: 'open',
        allow: ['203.0.113.0/24', '2001:db8::/32', 'docs.example.com'],
        deny: ['198.51.100.7/32', 'example.org'],
      },
      template: 'tpl_0a1b2c3d4e5f6a7b8c9d0e1f',
    },
    {
      ...sandbox,
      type: 'SandboxCreated',
      name: 'copy',
      size: 'small',
      metadata: {},
      idleTimeoutSeconds: 0,
      idempotencyKey: null,
      forkedFrom: 'sbx_source',
      hasSecrets: true,
      host: 'local',
      network: { egress: 'none', allow: [], deny: [] },
      template: null,
    },
    { ...sandbox, type: 'SandboxStarted' },
    { ...sandbox, type: 'SandboxStopped', reason: 'requested' },
    { ...sandbox, type: 'SandboxStopped', reason: 'idle_timeout' },
    { ...sandbox, type: 'SandboxResumed' },
    { ...sandbox, type: 'SandboxRestarted' },
    { ...sandbox, type: 'SandboxUpdated', metadata: { a: 'b' }, idleTimeoutSeconds: 60 },
    // Absent and empty differ: `{}` removes every key, an absent field changes nothing; 0 is "never".
    { ...sandbox, type: 'SandboxUpdated', metadata: {} },
    { ...sandbox, type: 'SandboxUpdated', idleTimeoutSeconds: 0 },
    // A policy is recorded whole, empty lists and all; an update without one leaves it (above).
    { ...sandbox, type: 'SandboxUpdated', network: { egress: 'open', allow: [], deny: ['10.0.0.0/8'] } },
    { ...sandbox, type: 'SandboxUpdated', network: { egress: 'none', allow: [], deny: [] } },
    { ...sandbox, type: 'SandboxUsed' },
    { ...sandbox, type: 'SandboxSecretsSet' },
    { ...sandbox, type: 'SandboxDestroyed' },
    { ...sandbox, type: 'SandboxLost', host: 'host_0a1b2c3d4e5f' },
    { ...sandbox, type: 'DesktopStartRequested', size: { width: 1920, height: 1080 } },
    {
      ...sandbox,
      type: 'DesktopStarted',
      display: ':1',
      vncPort: 5900,
      devtools: 'http://127.0.0.1:9222',
      browser: 'chromium 126.0.6478.126',
    },
    { ...sandbox, type: 'DesktopStopped' },
  ])('sandbox event $type', (event) => {
    expect(sandboxEventFromWire(throughProtobuf('sandbox', sandboxEventToWire(event)))).toEqual(event);
  });

  const created: SandboxEvent = {
    ...sandbox,
    type: 'SandboxCreated',
    name: 'old',
    size: 'small',
    metadata: {},
    idleTimeoutSeconds: 0,
    idempotencyKey: null,
    forkedFrom: null,
    hasSecrets: false,
    host: 'host_new',
    network: { egress: 'open', allow: [], deny: [] },
    template: null,
  };

  it('reads a SandboxCreated from before hosts (no host field) as held by the legacy host', () => {
    const wire = sandboxEventToWire(created) as { sandboxCreated: Record<string, unknown> };
    delete wire.sandboxCreated.host;
    expect(sandboxEventFromWire(throughProtobuf('sandbox', wire))).toEqual({
      ...created,
      host: legacyHostId,
    });
  });

  it('reads a SandboxCreated from before sandboxes had a network (no network field) as egress none, not open', () => {
    const wire = sandboxEventToWire(created) as { sandboxCreated: Record<string, unknown> };
    // The bytes an earlier producer wrote: the same message without field 9.
    delete wire.sandboxCreated.network;
    expect(sandboxEventFromWire(throughProtobuf('sandbox', wire))).toEqual({
      ...created,
      network: noNetwork,
    });
    expect(noNetwork).toEqual({ egress: 'none', allow: [], deny: [] });
  });

  it('does not guess an egress it does not know: the event is left undecoded (dead-lettered)', () => {
    const unknown = { egress: 'EGRESS_UNSPECIFIED', allow: [], deny: [] };
    const createdWire = sandboxEventToWire(created) as { sandboxCreated: Record<string, unknown> };
    createdWire.sandboxCreated.network = unknown;
    expect(sandboxEventFromWire(throughProtobuf('sandbox', createdWire))).toBeUndefined();
    const envelope = { eventId: 'e', sandboxId: 'sbx_1', orgId: 'o', occurredAtMs: at.getTime() };
    const updated = { ...envelope, sandboxUpdated: { network: unknown } };
    expect(sandboxEventFromWire(throughProtobuf('sandbox', updated))).toBeUndefined();
  });

  const usage: UsageRecorded = {
    type: 'UsageRecorded',
    eventId: 'e',
    orgId: 'o',
    occurredAt: at,
    requestId: 'r',
    keyId: 'k',
    model: 'm',
    endpoint: 'previews',
    inputTokens: 150_000,
    outputTokens: 7,
    fallback: true,
    latencyMs: 12.5,
  };

  it.each<[string, UsageRecorded]>([
    ["a key's request", usage],
    ["a person's Playground request", { ...usage, keyId: '', personId: 'person_1' }],
    ["a run's stretch", { ...usage, endpoint: 'runs', model: 'run:small', inputTokens: 0, seconds: 30 }],
  ])('usage recorded: %s', (_, event) => {
    expect(usageFromWire(throughProtobuf('usage', usageToWire(event)))).toEqual(event);
  });

  it('reads a Playground request recorded before person_id existed as naming no one', () => {
    const wire = usageToWire({ ...usage, keyId: '', personId: 'person_1' });
    // The bytes an earlier producer wrote: the same message without field 13.
    const { personId: _, ...before } = wire;
    const decoded = usageFromWire(throughProtobuf('usage', before));
    expect(decoded).toEqual({ ...usage, keyId: '' });
    expect(decoded).not.toHaveProperty('personId');
  });

  const firstReceived = new Date('2026-11-21T00:00:00Z');
  const received = (...traces: ReceivedTrace[]): SpanEvent => ({
    type: 'SpansReceived',
    eventId: 'e',
    orgId: 'o',
    occurredAt: at,
    traces,
  });

  it.each([
    ['keeps nulls apart from empty strings and 64-bit times exact', [span]],
    [
      'keeps each trace apart, with its own first-received time',
      [span, publishedSpan({ traceId: 'other', spanId: 'o' })],
    ],
  ])('spans received %s', (_, spans) => {
    const event = received(
      ...spans.map((one, index) => ({
        traceId: one.traceId,
        traceFirstReceivedAt: index === 0 ? firstReceived : at,
        spans: [one],
      })),
    );
    expect(spanEventFromWire(spanEventThroughBytes(event))).toEqual(event);
  });

  it('reads the one-trace SpansReceived written before traces travelled together', () => {
    const event = received({ traceId: span.traceId, traceFirstReceivedAt: firstReceived, spans: [span] });
    // The span's wire form is unchanged; only the envelope around it was.
    const current = spanEventThroughBytes(event) as { tracesReceived: { traces: { spans: unknown[] }[] } };
    const legacy = {
      eventId: 'e',
      orgId: 'o',
      occurredAtMs: at.getTime(),
      traceId: span.traceId,
      spansReceived: {
        traceFirstReceivedAtMs: firstReceived.getTime(),
        spans: current.tracesReceived.traces[0]?.spans,
      },
    };
    expect(spanEventFromWire(throughProtobuf('spans', legacy))).toEqual(event);
  });

  it('refuses a received trace without its id rather than storing it under none', () => {
    const wire = spanEventThroughBytes(received({ traceId: '', traceFirstReceivedAt: at, spans: [span] }));
    expect(spanEventFromWire(wire)).toBeUndefined();
  });

  it('trace deleted', () => {
    const event: SpanEvent = { type: 'TraceDeleted', eventId: 'e', orgId: 'o', traceId: 't', occurredAt: at };
    expect(spanEventFromWire(spanEventThroughBytes(event))).toEqual(event);
  });
});
