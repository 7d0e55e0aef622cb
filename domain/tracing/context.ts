// Session, user, service and environment, from the "Session, user, service, environment" table of
// 001 (Attributes read): session and user from the span's attributes, service and environment
// from its resource's.

import { findAttribute, firstOf, readString } from './attributes.ts';
import type { KeyValue } from './otlp.ts';

export const sessionAttributes = [
  'session.id',
  'gen_ai.conversation.id',
  'langfuse.session.id',
  'ai.telemetry.metadata.sessionId',
  'ai.settings.context.sessionId',
  'traceloop.association.properties.session_id',
] as const;

export const userAttributes = [
  'user.id',
  'enduser.id',
  'langfuse.user.id',
  'ai.telemetry.metadata.userId',
  'ai.settings.context.userId',
  'traceloop.association.properties.user_id',
] as const;

export const serviceAttributes = ['service.name'] as const;

export const environmentAttributes = ['deployment.environment.name', 'deployment.environment'] as const;

export interface SpanContext {
  sessionId: string | null;
  userId: string | null;
  serviceName: string | null;
  environment: string | null;
}

export function readContext(
  spanAttributes: readonly KeyValue[],
  resourceAttributes: readonly KeyValue[],
): SpanContext {
  return {
    sessionId: readSession(spanAttributes),
    userId: readUser(spanAttributes),
    serviceName: readService(resourceAttributes),
    environment: readEnvironment(resourceAttributes),
  };
}

export function readSession(spanAttributes: readonly KeyValue[]): string | null {
  return firstOf(spanAttributes, sessionAttributes, readIdentifier) ?? null;
}

export function readUser(spanAttributes: readonly KeyValue[]): string | null {
  return firstOf(spanAttributes, userAttributes, readIdentifier) ?? null;
}

export function readService(resourceAttributes: readonly KeyValue[]): string | null {
  return firstOf(resourceAttributes, serviceAttributes, readString) ?? null;
}

export function readEnvironment(resourceAttributes: readonly KeyValue[]): string | null {
  return firstOf(resourceAttributes, environmentAttributes, readString) ?? null;
}

/** Ids are often numbers in the caller's code (`setAttribute('user.id', 42)`): keep them as text. */
function readIdentifier(attributes: readonly KeyValue[], key: string): string | undefined {
  const value = findAttribute(attributes, key);
  return value?.kind === 'int' ? value.value.toString() : readString(attributes, key);
}
