import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { centsPerMillionInputTokens, requestPriceCents } from '../../domain/billing/price.ts';
import { idempotencyKeyHeader, readIdempotencyKey } from '../../domain/idempotency.ts';
import { parseInferenceBody, previewRequest, titleRequest } from '../../domain/inference/requests.ts';
import { inferenceEndpoints, type UsageRecorded } from '../../domain/usage/events.ts';
import { config, type InferenceModelConfig } from '../../platform/config.ts';
import { newId } from '../../platform/ids.ts';
import type { PgPool } from '../../platform/postgres.ts';
import type { EventProducer } from '../../producers/producer.ts';
import { publishUsage } from '../../producers/usage.ts';
import { fingerprint, type IdempotencyKeys } from '../../stores/idempotency-keys.ts';
import type { OrgDirectory } from '../auth/org-directory.ts';
import type { ClickHouseReads } from '../clickhouse-reads.ts';
import { errorResponses } from '../error-responses.ts';
import { errorHandler } from '../errors.ts';
import { parsedInHandler, parsedOrRefused } from '../request-validation.ts';
import { byEndpoint } from './endpoints.ts';
import { inferenceApiError, inferenceErrorFormat, toInferenceError } from './error-format.ts';
import {
  encodeCursor,
  namedPeople,
  readLoggedRequest,
  readRequestLog,
  requestDetail,
  requestItem,
  requestParams,
  requestsPage,
  requestsQuery,
} from './requests-list.ts';
import { askModel, type DeployedModel, type ModelReply, UpstreamUnavailable } from './upstream.ts';

export interface InferencePluginOptions {
  directory: OrgDirectory;
  producer: EventProducer;
  idempotencyKeys: IdempotencyKeys;
  /** From ORRERY_MODELS unless given (tests point models at their scripted server). */
  models?: readonly InferenceModelConfig[];
  /** The request log's reads (GET /requests), given up while ClickHouse is away. */
  readModels: ClickHouseReads;
  /** The people read model, which names the person who sent a Playground request. */
  pool: PgPool;
}

const answer = z.object({
  object: z.enum(['title', 'preview']),
  model: z.string(),
  text: z.string(),
  fallback: z.boolean(),
  usage: z.object({ input_tokens: z.number().int(), output_tokens: z.number().int() }),
  latency_ms: z.number(),
});

/** The Idempotency-Key header, when sent (domain/idempotency.ts); a malformed one is the 422 naming it. */
function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  const read = readIdempotencyKey(header);
  if (read.ok) return read.value;
  throw inferenceApiError('invalid_request', { param: idempotencyKeyHeader, message: read.message });
}

/**
 * The title and preview service (spec 000) under /api/inference: `/<model>/v1/titles` and
 * `/previews`, and the request list. Checks run in this order: key and scope (401, 403), model
 * (404), body and Idempotency-Key (422), credit (402), deployment (503); then the key's earlier
 * answer if it has one, else one upstream call (502), and the usage event acknowledged by Kafka
 * (503 usage_unavailable) before the answer.
 */
const modelList = z.object({
  data: z.array(
    z.object({
      id: z.string().describe('the name in /api/inference/<model>/v1/…'),
      object: z.literal('model'),
      writes: z.array(z.enum(inferenceEndpoints)),
      deployed: z.boolean().describe('false: configured without a server, so its requests answer 503'),
      price: z.object({
        input_cents_per_million_tokens: z.number(),
        output_cents_per_million_tokens: z.number(),
      }),
    }),
  ),
});

export const inferencePlugin: FastifyPluginAsyncZod<InferencePluginOptions> = async (app, opts) => {
  app.setErrorHandler(errorHandler(inferenceErrorFormat, toInferenceError));
  app.setValidatorCompiler(parsedInHandler);
  const configured = opts.models ?? config().inference.models;
  const models = new Map(configured.map((model) => [model.name, model]));
  const deployments = new Map<string, DeployedModel>();
  for (const model of configured)
    if (model.baseUrl) deployments.set(model.name, { ...model, baseUrl: model.baseUrl });

  for (const endpoint of inferenceEndpoints) {
    const served = byEndpoint[endpoint];
    app.post(
      `/:model/v1/${endpoint}`,
      {
        // No answer without its usage event: while Kafka is away, 503 before the model is asked.
        // A dashboard session too: the Playground sends its requests with the person's session.
        onRequest: [app.requireKeyOrSession('inference:invoke'), app.refuseWhileAway(['kafka'])],
        schema: {
          tags: ['inference'],
          params: z.object({ model: z.string() }),
          body: endpoint === 'titles' ? titleRequest : previewRequest,
          response: { 200: answer, ...errorResponses('inference.write') },
        },
      },
      async (request, reply) => {
        const principal = request.principal!;
        const model = models.get(request.params.model);
        if (!model?.writes.includes(endpoint)) throw inferenceApiError('model_not_found');
        const prepared = served.prepare(request.body, model);
        const idempotencyKey = idempotencyKeyOf(request.headers['idempotency-key']);
        if (!opts.directory.hasCredit(principal.orgId)) throw inferenceApiError('insufficient_credit');
        const deployment = deployments.get(model.name);
        if (!deployment) throw inferenceApiError('not_configured');

        // A request is its id and time: new, or the first attempt's for a retried Idempotency-Key.
        let requestId = newId('req');
        let occurredAt: Date | undefined;
        if (idempotencyKey) {
          const claimed = await opts.idempotencyKeys.claim(principal.orgId, idempotencyKey, {
            requestId,
            occurredAt: new Date(),
            // The same text as before keys were shared, so keys claimed then still match.
            fingerprint: fingerprint(`${endpoint}\n${model.name}`, request.body),
          });
          if (!claimed.sameRequest) throw inferenceApiError('idempotency_key_reused');
          requestId = claimed.requestId;
          occurredAt = claimed.occurredAt;
          if (claimed.answer) {
            reply.header('x-request-id', requestId);
            reply.header('idempotent-replayed', 'true');
            return claimed.answer as z.infer<typeof answer>;
          }
        }

        let modelReply: ModelReply;
        try {
          modelReply = await askModel(deployment, prepared.prompt);
        } catch (error) {
          if (!(error instanceof UpstreamUnavailable)) throw error;
          request.log.warn({ model: model.name, reason: error.reason }, 'inference: upstream unavailable');
          throw inferenceApiError('upstream_unavailable');
        }
        const decided = prepared.answer(modelReply.line);
        if (decided.failed)
          request.log.info(
            { model: model.name, prompt: prepared.prompt.version, failed: decided.failed },
            'inference: fallback',
          );

        const event: UsageRecorded = {
          type: 'UsageRecorded',
          eventId: randomUUID(),
          orgId: principal.orgId,
          occurredAt: occurredAt ?? new Date(),
          requestId,
          // The request log's "key that made it"; a Playground request has none, and names the
          // person whose session sent it instead.
          keyId: principal.kind === 'key' ? principal.keyId : '',
          ...(principal.kind === 'member' ? { personId: principal.personId } : {}),
          model: model.name,
          endpoint,
          inputTokens: modelReply.inputTokens,
          outputTokens: modelReply.outputTokens,
          fallback: decided.fallback,
          latencyMs: modelReply.latencyMs,
        };
        try {
          // Acknowledged, or failed, within the caller's wait (ORRERY_PUBLISH_TIMEOUT_MS). At once,
          // not after the producer's 5 ms linger: at 500 titles a second, in four alternating pairs
          // of bench/inference runs, the overhead's p99 went from 9.7-11.3 ms to 7.0-9.5 ms, for
          // 17-20% more CPU per request.
          await publishUsage(opts.producer, [event], { atOnce: true });
        } catch (error) {
          request.log.error({ err: error, requestId: event.requestId }, 'inference: usage not acknowledged');
          throw inferenceApiError('usage_unavailable', { headers: { 'retry-after': '5' } });
        }
        reply.header('x-request-id', event.requestId);
        // Our time and the model's, so a caller can tell them apart (W3C Server-Timing).
        reply.header(
          'server-timing',
          `model;dur=${modelReply.latencyMs}, service;dur=${reply.elapsedTime.toFixed(2)}`,
        );
        const answered = {
          object: served.object,
          model: model.name,
          text: decided.text,
          fallback: decided.fallback,
          usage: { input_tokens: modelReply.inputTokens, output_tokens: modelReply.outputTokens },
          latency_ms: modelReply.latencyMs,
        };
        // Kept for the key's retries; if it is not kept, a retry asks the model again under the
        // same request id, which is still billed once.
        if (idempotencyKey)
          void opts.idempotencyKeys
            .remember(principal.orgId, idempotencyKey, answered)
            .catch((error: unknown) => {
              request.log.warn(
                { err: error, requestId },
                'inference: answer not kept for its Idempotency-Key',
              );
            });
        return answered;
      },
    );
  }

  app.get(
    '/models',
    {
      onRequest: app.requireKeyOrSession('inference:invoke'),
      schema: {
        tags: ['inference'],
        summary: 'The models served here, what each writes, and the price (the Playground lists them)',
        response: { 200: modelList, ...errorResponses('inference.models') },
      },
    },
    async () => ({
      data: configured.map((model) => ({
        id: model.name,
        object: 'model' as const,
        writes: [...model.writes],
        deployed: deployments.has(model.name),
        price: {
          input_cents_per_million_tokens: Number(centsPerMillionInputTokens),
          output_cents_per_million_tokens: 0,
        },
      })),
    }),
  );

  app.get(
    '/requests',
    {
      onRequest: [app.requireKeyOrSession('inference:invoke'), app.refuseWhileAway(['clickhouse'])],
      schema: {
        tags: ['inference'],
        querystring: requestsQuery,
        response: { 200: requestsPage, ...errorResponses('inference.read') },
      },
    },
    async (request) => {
      const query = parsedOrRefused(parseInferenceBody(requestsQuery, request.query));
      const { orgId } = request.principal!;
      const page = await opts.readModels.read((clickhouse) => readRequestLog(clickhouse, orgId, query));
      const org = opts.directory.org(orgId);
      const people = await namedPeople(opts.pool, org?.members ?? {}, page.rows);
      return {
        data: page.rows.map((row) => requestItem(row, org?.keys ?? {}, people)),
        next_cursor: page.next ? encodeCursor(page.next) : null,
      };
    },
  );

  app.get(
    '/requests/:requestId',
    {
      onRequest: [app.requireKeyOrSession('inference:invoke'), app.refuseWhileAway(['clickhouse'])],
      schema: {
        tags: ['inference'],
        summary: 'One request of the log, with what it cost (the dashboard opens it from the list)',
        params: requestParams,
        response: { 200: requestDetail, ...errorResponses('inference.read') },
      },
    },
    async (request) => {
      const { requestId } = parsedOrRefused(parseInferenceBody(requestParams, request.params));
      const { orgId } = request.principal!;
      const row = await opts.readModels.read((clickhouse) => readLoggedRequest(clickhouse, orgId, requestId));
      if (!row) throw inferenceApiError('request_not_found');
      const org = opts.directory.org(orgId);
      const people = await namedPeople(opts.pool, org?.members ?? {}, [row]);
      const item = requestItem(row, org?.keys ?? {}, people);
      return { ...item, cost_cents: requestPriceCents(item.input_tokens) };
    },
  );
};
