import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createApiKey, createOrg, grantCredit } from '../../../api/admin/commands.ts';
import { buildApi } from '../../../api/app.ts';
import { hashApiKey } from '../../../api/auth/api-keys.ts';
import type { Scope } from '../../../domain/orgs/events.ts';
import type { InferenceModelConfig } from '../../../platform/config.ts';
import { logger } from '../../../platform/logger.ts';
import type { EventProducer } from '../../../producers/producer.ts';
import { type ModelServer, refusedBaseUrl, startModelServer } from '../../harness/model-server.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';

/**
 * The title and preview service on the real stack, with its models pointed at a scripted
 * OpenAI-compatible server: `scribe` writes both (1 s budget, one retry), `titler` only titles,
 * `dormant` is known but not deployed, `unreachable` is deployed where nothing listens.
 */
export interface InferenceService {
  platform: TestPlatform;
  model: ModelServer;
  api: FastifyInstance;
  models: InferenceModelConfig[];
  /** Another API on the same platform, e.g. with a producer that cannot publish. */
  apiWith(producer: EventProducer): Promise<FastifyInstance>;
  stop(): Promise<void>;
}

export const upstreamKey = 'sk-upstream-test';

export async function startInferenceService(): Promise<InferenceService> {
  const platform = await startTestPlatform();
  const model = await startModelServer();
  const deployed = {
    baseUrl: model.baseUrl,
    timeoutMs: 1000,
    retries: 1,
    maxTokens: 64,
    answerPrefix: false,
  };
  const models: InferenceModelConfig[] = [
    {
      name: 'scribe',
      writes: ['titles', 'previews'],
      ...deployed,
      upstreamModel: 'stand-in/scribe',
      apiKey: upstreamKey,
    },
    { name: 'titler', writes: ['titles'], ...deployed },
    {
      name: 'continuer',
      writes: ['titles', 'previews'],
      ...deployed,
      answerPrefix: true,
      extraBody: { dry_multiplier: 0.8, grammar: 'root ::= [a-z]+' },
    },
    {
      name: 'dormant',
      writes: ['titles', 'previews'],
      timeoutMs: 1000,
      retries: 1,
      maxTokens: 64,
      answerPrefix: false,
    },
    { name: 'unreachable', writes: ['titles', 'previews'], ...deployed, baseUrl: await refusedBaseUrl() },
  ];
  const apis: FastifyInstance[] = [];
  const apiWith = async (producer: EventProducer) => {
    const api = await buildApi({
      logger,
      directory: platform.directory,
      producer,
      pool: platform.pool,
      ready: () => true,
      models,
    });
    await api.ready();
    apis.push(api);
    return api;
  };
  const api = await apiWith(platform.producer);
  return {
    platform,
    model,
    api,
    models,
    apiWith,
    async stop() {
      await Promise.all(apis.map((each) => each.close()));
      await model.close();
      await platform.stop();
    },
  };
}

export interface Customer {
  orgId: string;
  key: string;
  keyId: string;
}

/** An org with a key, and credit unless `creditCents` is 0, known to the API's directory. */
export async function newCustomer(
  service: Pick<InferenceService, 'platform'>,
  options: { creditCents?: number; scopes?: Scope[]; name?: string } = {},
): Promise<Customer> {
  const { platform } = service;
  const org = await createOrg(platform.admin, options.name ?? 'Inference Customer');
  const scopes = options.scopes ?? ['inference:invoke'];
  const { key, keyId } = await createApiKey(platform.admin, org.orgId, scopes, 'test key');
  const credit = options.creditCents ?? 1000;
  if (credit > 0) await grantCredit(platform.admin, org.orgId, credit, 'test credit');
  await eventually(
    async () =>
      platform.directory.principal(hashApiKey(key)) && platform.directory.balanceCents(org.orgId) === credit
        ? true
        : undefined,
    10_000,
    'the directory to know the key and credit',
  );
  return { orgId: org.orgId, key, keyId };
}

export const titleBody = {
  messages: [
    { role: 'user', content: 'How do I reset my password?' },
    { role: 'assistant', content: 'Open Settings, then Security.' },
  ],
};

export const emailBody = {
  kind: 'email',
  reader: 'Ana',
  item: { subject: 'Q3 plan', from: 'Bob', to: 'Ana', body: 'Here is the Q3 plan.' },
};

/** POST /api/inference/<path>: a body object as JSON, or a string sent as it is. */
export function invoke(
  api: FastifyInstance,
  path: string,
  body: unknown,
  key?: string,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return api.inject({
    method: 'POST',
    url: `/api/inference/${path}`,
    headers: {
      'content-type': 'application/json',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...headers,
    },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export interface LoggedRequest {
  id: string;
  created_at: string;
  /** null for a Playground request (a session), which names its person instead. */
  key: { id: string; name: string | null; prefix: string | null } | null;
  person: { id: string; name: string | null } | null;
  model: string;
  endpoint: string;
  input_tokens: number;
  output_tokens: number;
  fallback: boolean;
  latency_ms: number;
}

/** GET /api/inference/requests with the given query: status and JSON. */
export async function requestList(
  api: FastifyInstance,
  key: string,
  query: Record<string, string> = {},
): Promise<{ status: number; body: { data: LoggedRequest[]; next_cursor: string | null } }> {
  const response = await api.inject({
    method: 'GET',
    url: '/api/inference/requests',
    query,
    headers: { authorization: `Bearer ${key}` },
  });
  return { status: response.statusCode, body: response.json() };
}

/** GET /api/inference/requests/{requestId}: status and JSON (a request, or the error body). */
export async function requestById(
  api: FastifyInstance,
  key: string,
  requestId: string,
): Promise<{ status: number; body: LoggedRequest & { cost_cents: number } }> {
  const response = await api.inject({
    method: 'GET',
    url: `/api/inference/requests/${encodeURIComponent(requestId)}`,
    headers: { authorization: `Bearer ${key}` },
  });
  return { status: response.statusCode, body: response.json() };
}

/** Waits until the request log (ClickHouse, read through the API) holds the request. */
export function loggedRequest(api: FastifyInstance, key: string, requestId: string): Promise<LoggedRequest> {
  return eventually(
    async () => (await requestList(api, key, { limit: '200' })).body.data.find((row) => row.id === requestId),
    20_000,
    `request ${requestId} in the request log`,
  );
}
