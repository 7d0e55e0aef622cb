import { z } from 'zod';
import { parseSandboxBody } from '../../domain/sandboxes/parse.ts';
import { textWithoutNul } from '../../domain/text.ts';
import type { EventProducer } from '../../producers/producer.ts';
import type { SandboxStore } from '../../stores/sandboxes.ts';
import type { TemplateStore } from '../../stores/templates.ts';
import type { SandboxTokenCodec } from '../auth/sandbox-tokens.ts';
import { parsedOrRefused } from '../request-validation.ts';
import type { SandboxAccess } from './access.ts';
import type { Fleet } from './fleet.ts';
import type { HostClient } from './host-client.ts';

/** What the sandbox routes share, made once by the plugin. */
export interface SandboxContext {
  store: SandboxStore;
  /** The template read model: a sandbox from a template is checked and placed with it (issue 48). */
  templates: TemplateStore;
  access: SandboxAccess;
  /** The fleet of sandbox hosts, and the way to call the one holding a sandbox. */
  fleet: Fleet;
  hosts: HostClient;
  /** Records a lost sandbox's changes, which no host holds any more (routing.ts). */
  producer: EventProducer;
  tokens: SandboxTokenCodec;
  now: () => Date;
  /** How long a change recorded here waits for the read model. */
  projectionTimeoutMs: number;
}

/** Parses a body or query with the domain's schema; a refusal is a 422 naming the field. */
export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  return parsedOrRefused(parseSandboxBody(schema, input));
}

/** Routes whose options are all optional take no body as `{}`. */
export const orEmpty = (body: unknown) => body ?? {};

export const idParams = z.object({ id: textWithoutNul().describe('a sandbox id (`sbx_…`) or its name') });
