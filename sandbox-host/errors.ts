import type { FastifyReply, FastifyRequest } from 'fastify';
import { RunError } from '../domain/runs/errors.ts';
import { changeNotRecordedMessage, SandboxError } from '../domain/sandboxes/errors.ts';
import { ReadModelBehind } from '../producers/command-shell.ts';
import { PublishFailed } from '../producers/producer.ts';
import { NoRoom } from './room.ts';

// What a host answers when it refuses: the public error body `{ error: { code, message, param? } }`
// with the status of its code, which the API passes on to its caller as it is (the sandbox and
// run surfaces share that shape). The API relays the words, so they are written for the caller.

/** A request for a sandbox another host holds: the API routed it from a read it should redo. */
export class NotThisHost extends Error {
  constructor(sandboxId: string, holder: string, self: string) {
    super(`sandbox ${sandboxId} is held by host ${holder}, not by this host (${self})`);
    this.name = 'NotThisHost';
  }
}

/** This host runs without a desktop (tests, or an operator's choice). */
export class DesktopNotConfigured extends Error {
  constructor() {
    super('this sandbox host runs without a desktop');
    this.name = 'DesktopNotConfigured';
  }
}

export interface Refusal {
  status: number;
  code: string;
  message: string;
  param?: string;
  headers?: Record<string, string>;
}

const retryLater = { 'retry-after': '5' };

/** A thrown error as the refusal the host answers, or undefined for a failure of its own (500). */
export function refusalOf(error: unknown): Refusal | undefined {
  if (error instanceof SandboxError || error instanceof RunError)
    return { status: error.status, code: error.code, message: error.message, param: error.param };
  if (error instanceof NoRoom)
    return { status: 503, code: 'no_capacity', message: error.message, headers: retryLater };
  if (error instanceof PublishFailed || error instanceof ReadModelBehind)
    return {
      status: 503,
      code: 'unavailable',
      message: changeNotRecordedMessage,
      headers: retryLater,
    };
  if (error instanceof DesktopNotConfigured)
    return {
      status: 503,
      code: 'not_configured',
      message:
        'This sandbox host runs without a desktop: ask its operator to start it with one, or call another deployment.',
    };
  if (error instanceof NotThisHost)
    return {
      status: 503,
      code: 'unavailable',
      message: 'The sandbox is moving between hosts right now: retry in a few seconds (a retry is safe).',
      headers: retryLater,
    };
  return undefined;
}

export function hostErrorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const refusal = refusalOf(error);
  if (!refusal) {
    request.log.error({ err: error }, 'sandbox host: request failed');
    return reply.status(500).send({
      error: {
        code: 'internal_error',
        message: 'The sandbox host failed: retry, and report it if it lasts.',
      },
    });
  }
  if (refusal.status >= 500) request.log.warn({ err: error }, `sandbox host: ${refusal.code}`);
  const { status, code, message, param, headers } = refusal;
  return reply
    .status(status)
    .headers(headers ?? {})
    .send({ error: param === undefined ? { code, message } : { code, message, param } });
}
