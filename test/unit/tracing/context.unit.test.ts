import { describe, expect, it } from 'vitest';
import {
  environmentAttributes,
  readContext,
  readEnvironment,
  readService,
  readSession,
  readUser,
  serviceAttributes,
  sessionAttributes,
  userAttributes,
} from '../../../domain/tracing/context.ts';
import type { KeyValue } from '../../../domain/tracing/otlp.ts';
import { attrs, type Plain } from './reading-fixtures.ts';

// 001, Attributes read, "Session, user, service, environment": each list in order.
const lists = [
  ['session', sessionAttributes, readSession],
  ['user', userAttributes, readUser],
  ['service', serviceAttributes, readService],
  ['environment', environmentAttributes, readEnvironment],
] as const;

it('matches the table of the spec, in order', () => {
  expect(sessionAttributes).toEqual([
    'session.id',
    'gen_ai.conversation.id',
    'langfuse.session.id',
    'ai.telemetry.metadata.sessionId',
    'ai.settings.context.sessionId',
    'traceloop.association.properties.session_id',
  ]);
  expect(userAttributes).toEqual([
    'user.id',
    'enduser.id',
    'langfuse.user.id',
    'ai.telemetry.metadata.userId',
    'ai.settings.context.userId',
    'traceloop.association.properties.user_id',
  ]);
  expect(serviceAttributes).toEqual(['service.name']);
  expect(environmentAttributes).toEqual(['deployment.environment.name', 'deployment.environment']);
});

describe.each(lists)('%s', (_, list, read) => {
  it.each(list.map((key) => [key]))('reads %s alone', (key) => {
    expect(read(attrs({ [key]: 'value-1' }))).toBe('value-1');
  });

  it.each(list.slice(0, -1).map((key, index) => [key, list[index + 1]!]))(
    'prefers %s to %s',
    (earlier, later) => {
      expect(read(attrs({ [later]: 'later', [earlier]: 'earlier' }))).toBe('earlier');
    },
  );

  it('skips an empty string', () => {
    const attributes = attrs({ [list[0]]: '', ...(list[1] ? { [list[1]]: 'next' } : {}) });
    expect(read(attributes)).toBe(list[1] ? 'next' : null);
  });

  it('is null without any of its attributes', () => {
    expect(read(attrs({ 'http.route': '/chat' }))).toBeNull();
  });
});

describe('ids sent as numbers', () => {
  it.each<[string, Plain, string | null]>([
    ['an int user id is read as its decimal text', 4217, '4217'],
    ['a fractional number is not an id', 1.5, null],
    ['a bool is not an id', true, null],
  ])('%s', (_, value, expected) => {
    expect(readUser(attrs({ 'user.id': value }))).toBe(expected);
  });
});

describe('readContext', () => {
  const span: KeyValue[] = attrs({
    'ai.telemetry.metadata.sessionId': 'chat-81',
    'ai.telemetry.metadata.userId': 'user-5',
    'deployment.environment': 'span-level, not read',
    'service.name': 'span-level, not read',
  });
  const resource: KeyValue[] = attrs({
    'service.name': 'support-bot',
    'deployment.environment': 'staging',
    'deployment.environment.name': 'production',
    'session.id': 'resource-level, not read',
  });

  it('reads session and user from the span, service and environment from the resource', () => {
    expect(readContext(span, resource)).toEqual({
      sessionId: 'chat-81',
      userId: 'user-5',
      serviceName: 'support-bot',
      environment: 'production',
    });
  });

  it('falls back to deployment.environment', () => {
    expect(readContext([], attrs({ 'deployment.environment': 'staging' })).environment).toBe('staging');
  });

  it('is all null for empty attributes', () => {
    expect(readContext([], [])).toEqual({
      sessionId: null,
      userId: null,
      serviceName: null,
      environment: null,
    });
  });
});
