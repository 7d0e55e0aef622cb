import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { encodeSessionCursor, encodeTraceCursor } from '../../domain/tracing/queries-cursor.ts';
import {
  newestTraces,
  sessionsAfter,
  sessionsOf,
  totalsOf,
  tracesAfter,
  valuesOf,
} from '../../domain/tracing/queries-sessions.ts';
import { buildSpanTree } from '../../domain/tracing/queries-tree.ts';
import { summarizeTrace } from '../../domain/tracing/trace-summary.ts';
import type { ClickHouseReads } from '../clickhouse-reads.ts';
import { errorResponses } from '../error-responses.ts';
import { ApiError, errorHandler, jsonErrorFormat } from '../errors.ts';
import { errorsByDayAndKind, latencyByKind, usageByModel } from './analytics-store.ts';
import {
  sessionData,
  sessionTrace,
  spanDetail,
  spanNode,
  spanOutlineNode,
  traceItem,
  traceModels,
  usdOrNull,
  userData,
} from './answers.ts';
import {
  analyticsQuery,
  errorsAnswer,
  latencyAnswer,
  latestTraceCount,
  sessionAnswer,
  sessionParams,
  sessionQuery,
  spanAnswer,
  spanParams,
  traceAnswer,
  traceListAnswer,
  traceListQuery,
  traceOutlineAnswer,
  traceParams,
  usageAnswer,
  userAnswer,
  userParams,
  userQuery,
} from './schemas.ts';
import { conversationTurns, tracesWith } from './sessions-store.ts';
import { findSpan, traceOutline, traceSpans } from './spans-store.ts';
import { listTraces, oneTrace } from './traces-store.ts';

// The query surface (GET /api/traces…, /api/sessions/…, /api/users/…, /api/analytics/…): reads of the spans read model in
// ClickHouse, never Kafka. Every route needs a key with `traces:write`, the contract's only
// tracing scope, and sees only the key's org.

const notFound = (what: string) =>
  new ApiError('not_found', 404, `No ${what} with this id in your org; it may be past retention or deleted.`);

export const queriesPlugin: FastifyPluginAsyncZod<{ readModels: ClickHouseReads }> = async (app, opts) => {
  const { readModels } = opts;
  app.setErrorHandler(errorHandler(jsonErrorFormat));
  app.addHook('onRequest', app.requireKeyOrSession('traces:write'));
  app.addHook('onRequest', app.refuseWhileAway(['clickhouse']));
  const orgOf = (request: { principal?: { orgId: string } }) => request.principal!.orgId;

  app.get(
    '/traces',
    {
      schema: {
        tags: ['traces'],
        summary: 'Traces, newest first, with their totals',
        querystring: traceListQuery,
        response: { 200: traceListAnswer, ...errorResponses('traces.list') },
      },
    },
    async (request) => {
      const query = request.query;
      const page = await readModels.read((clickhouse) =>
        listTraces(clickhouse, orgOf(request), {
          from: query.from,
          to: query.to,
          sessionId: query.session_id,
          userId: query.user_id,
          service: query.service,
          environment: query.environment,
          model: query.model,
          kind: query.kind,
          name: query.name,
          cursor: query.cursor,
          limit: query.limit,
        }),
      );
      const last = page.traces.at(-1)?.summary;
      return {
        data: page.traces.map((trace) => traceItem(trace.summary, trace.models)),
        next_cursor:
          page.more && last
            ? encodeTraceCursor({ startTimeUnixNano: last.startTimeUnixNano, traceId: last.traceId })
            : null,
      };
    },
  );

  app.get(
    '/traces/:traceId',
    {
      schema: {
        tags: ['traces'],
        summary: 'One trace: its totals and its span tree, without input and output',
        params: traceParams,
        response: { 200: traceAnswer, ...errorResponses('traces.one') },
      },
    },
    async (request) => {
      const spans = await readModels.read((clickhouse) =>
        traceSpans(clickhouse, orgOf(request), request.params.traceId),
      );
      if (spans.length === 0) throw notFound('trace');
      return {
        data: {
          ...traceItem(summarizeTrace(spans), traceModels(spans)),
          spans: buildSpanTree(spans).map(spanNode),
        },
      };
    },
  );

  app.get(
    '/traces/:traceId/outline',
    {
      schema: {
        tags: ['traces'],
        summary: "One trace: its totals and its span tree in outline, what the dashboard's trace view draws",
        description:
          'Each span has its id, name, kind, times, status and model; `GET /api/traces/{traceId}` has every head field, `GET /api/traces/{traceId}/spans/{spanId}` everything stored. A third of the bytes of the whole tree.',
        params: traceParams,
        response: { 200: traceOutlineAnswer, ...errorResponses('traces.one') },
      },
    },
    async (request) => {
      const { traceId } = request.params;
      const [trace, spans] = await readModels.read((clickhouse) =>
        Promise.all([
          oneTrace(clickhouse, orgOf(request), traceId),
          traceOutline(clickhouse, orgOf(request), traceId),
        ]),
      );
      if (!trace || spans.length === 0) throw notFound('trace');
      return {
        data: { ...traceItem(trace.summary, trace.models), spans: buildSpanTree(spans).map(spanOutlineNode) },
      };
    },
  );

  app.get(
    '/traces/:traceId/spans/:spanId',
    {
      schema: {
        tags: ['traces'],
        summary: 'One span with everything stored',
        params: spanParams,
        response: { 200: spanAnswer, ...errorResponses('traces.one') },
      },
    },
    async (request) => {
      const { traceId, spanId } = request.params;
      const found = await readModels.read((clickhouse) =>
        findSpan(clickhouse, orgOf(request), traceId, spanId),
      );
      if (!found) throw notFound('span');
      return { data: spanDetail(found) };
    },
  );

  app.get(
    '/sessions/:sessionId',
    {
      schema: {
        tags: ['traces'],
        summary: 'One session: its totals and its traces in the order they started, each with its messages',
        params: sessionParams,
        querystring: sessionQuery,
        response: { 200: sessionAnswer, ...errorResponses('traces.one') },
      },
    },
    async (request) => {
      const { sessionId } = request.params;
      const { cursor, limit } = request.query;
      const { traces, page, turns } = await readModels.read(async (clickhouse) => {
        const traces = await tracesWith(clickhouse, orgOf(request), 'sessionId', sessionId);
        const page = tracesAfter(traces, cursor, limit);
        const ids = page.items.map((trace) => trace.summary.traceId);
        return { traces, page, turns: await conversationTurns(clickhouse, orgOf(request), ids) };
      });
      if (traces.length === 0) throw notFound('session');
      const last = page.items.at(-1)?.summary;
      return {
        data: sessionData(
          sessionId,
          totalsOf(traces.map((trace) => trace.summary)),
          valuesOf(
            traces.map((trace) => trace.summary),
            'userId',
          ),
          page.items.map((trace) => sessionTrace(trace, turns.get(trace.summary.traceId))),
        ),
        next_cursor:
          page.more && last
            ? encodeTraceCursor({ startTimeUnixNano: last.startTimeUnixNano, traceId: last.traceId })
            : null,
      };
    },
  );

  app.get(
    '/users/:userId',
    {
      schema: {
        tags: ['traces'],
        summary: 'One user: its totals, its sessions newest first, and its newest traces',
        params: userParams,
        querystring: userQuery,
        response: { 200: userAnswer, ...errorResponses('traces.one') },
      },
    },
    async (request) => {
      const { userId } = request.params;
      const { cursor, limit } = request.query;
      const traces = await readModels.read((clickhouse) =>
        tracesWith(clickhouse, orgOf(request), 'userId', userId),
      );
      if (traces.length === 0) throw notFound('user');
      const summaries = traces.map((trace) => trace.summary);
      const sessions = sessionsOf(summaries);
      const page = sessionsAfter(sessions, cursor, limit);
      const last = page.items.at(-1);
      return {
        data: userData(
          userId,
          totalsOf(summaries),
          sessions.length,
          page.items,
          newestTraces(traces, latestTraceCount),
        ),
        next_cursor:
          page.more && last
            ? encodeSessionCursor({ lastEndUnixNano: last.lastEndUnixNano, sessionId: last.sessionId })
            : null,
      };
    },
  );

  const range = (query: { from: Date; to: Date }) => ({
    from: query.from.toISOString(),
    to: query.to.toISOString(),
  });

  app.get(
    '/analytics/usage',
    {
      schema: {
        tags: ['analytics'],
        summary: 'Spans, tokens and cost by model by UTC day',
        querystring: analyticsQuery,
        response: { 200: usageAnswer, ...errorResponses('traces.list') },
      },
    },
    async (request) => ({
      ...range(request.query),
      data: (
        await readModels.read((clickhouse) => usageByModel(clickhouse, orgOf(request), request.query))
      ).map((row) => ({
        day: row.day,
        model: row.model,
        spans: row.spans,
        input_tokens: row.inputTokens,
        output_tokens: row.outputTokens,
        cost_usd: usdOrNull(row.costNanoUsd),
      })),
    }),
  );

  app.get(
    '/analytics/latency',
    {
      schema: {
        tags: ['analytics'],
        summary: 'Span duration percentiles by kind',
        querystring: analyticsQuery,
        response: { 200: latencyAnswer, ...errorResponses('traces.list') },
      },
    },
    async (request) => ({
      ...range(request.query),
      data: (
        await readModels.read((clickhouse) => latencyByKind(clickhouse, orgOf(request), request.query))
      ).map((row) => ({
        kind: row.kind,
        spans: row.spans,
        p50_ms: row.p50Ms,
        p90_ms: row.p90Ms,
        p99_ms: row.p99Ms,
      })),
    }),
  );

  app.get(
    '/analytics/errors',
    {
      schema: {
        tags: ['analytics'],
        summary: 'Spans and error spans by UTC day and kind',
        querystring: analyticsQuery,
        response: { 200: errorsAnswer, ...errorResponses('traces.list') },
      },
    },
    async (request) => ({
      ...range(request.query),
      data: await readModels.read((clickhouse) =>
        errorsByDayAndKind(clickhouse, orgOf(request), request.query),
      ),
    }),
  );
};
