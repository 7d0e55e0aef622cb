import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { pricesInEffect } from '../../domain/tracing/default-prices.ts';
import type { OtlpTraceRequest } from '../../domain/tracing/otlp.ts';
import type { PriceOf } from '../../domain/tracing/prices.ts';
import { ingestPhaseDuration } from '../../platform/metrics.ts';
import type { OrgDirectory } from '../auth/org-directory.ts';
import { errorHandler } from '../errors.ts';
import type { AdmissionQueue } from './admission-queue.ts';
import { readOtlpBody, requestBodyLimits } from './body.ts';
import { parseContentType } from './content-type.ts';
import { decodeJson } from './decode-json.ts';
import { decodeProtobuf } from './decode-protobuf.ts';
import { encodeExportResponse, type OtlpFormat, otlpContentTypes } from './encode.ts';
import { OtlpError, otlpErrorFormat, toOtlpError } from './errors.ts';
import { NormalizationFailed, type PendingSpans, pendingSpans } from './ingest.ts';

export interface OtlpOptions {
  directory: OrgDirectory;
  /** The API's one admission queue, shared with trace deletion (deletion.ts). */
  admissions: AdmissionQueue;
}

const decoders: Record<OtlpFormat, (body: Buffer) => OtlpTraceRequest> = {
  protobuf: decodeProtobuf,
  json: decodeJson,
};

/**
 * `POST /api/otlp/v1/traces` (001, Endpoints): auth and the tracing beta first, then the media
 * type, the body read under its caps (the bytes sent counted as they arrive), decoding,
 * normalization, admission and the publish; the answer, in the request's encoding, is sent once
 * Kafka acknowledged.
 */
export const otlpPlugin: FastifyPluginAsync<OtlpOptions> = async (app, options) => {
  app.setErrorHandler(errorHandler(otlpErrorFormat, toOtlpError));
  const { admissions } = options;
  // The body is read here, as a stream, under the spec's caps: no parser buffers it first.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  const requireTracing = async (request: FastifyRequest) => {
    if (!options.directory.org(request.principal!.orgId)?.tracingEnabled)
      throw new OtlpError('tracing_not_enabled');
  };

  app.post(
    '/v1/traces',
    {
      // The ledger is in Postgres and the spans go to Kafka: while either is away, 503 at once.
      onRequest: [app.requireKey('traces:write'), requireTracing, app.refuseWhileAway(['postgres', 'kafka'])],
      schema: { hide: true },
    },
    async (request, reply) => {
      const format = parseContentType(request.headers['content-type']);
      if (!format) throw new OtlpError('unsupported_media_type', 'unsupported Content-Type');
      // Normalized in admission, while the ledger is read, or while it waits for its org's running
      // group (ingest.ts, pendingSpans).
      // Priced as received: the org's prices now, a change after this request applies to the next.
      const priceOf = pricesInEffect(options.directory.prices(request.principal!.orgId));
      const spans = await receivedSpans(request, reply, format, priceOf);
      let admission: Awaited<ReturnType<AdmissionQueue['admit']>> | undefined;
      if (spans.traceIds.length > 0) {
        try {
          admission = await admissions.admit(request.principal!.orgId, spans);
        } catch (error) {
          if (error instanceof NormalizationFailed) throw error;
          request.log.error({ err: error }, 'spans could not be stored');
          throw new OtlpError('tracing_unavailable');
        }
      }
      const partial =
        admission && admission.rejectedSpans > 0
          ? { rejectedSpans: admission.rejectedSpans, errorMessage: admission.errorMessage }
          : undefined;
      return reply.type(otlpContentTypes[format]).send(encodeExportResponse(format, partial));
    },
  );
};

/**
 * The request's spans, read under the caps and decoded; a function of its own so that the body and
 * the decoded request are not held by the handler while it waits for admission.
 */
async function receivedSpans(
  request: FastifyRequest,
  reply: FastifyReply,
  format: OtlpFormat,
  priceOf: PriceOf,
): Promise<PendingSpans> {
  const started = performance.now();
  let body: Buffer;
  try {
    body = await readOtlpBody(request.raw, {
      contentEncoding: request.headers['content-encoding'],
      ...requestBodyLimits,
    });
  } catch (error) {
    // The rest of an oversized body is not read: the connection is closed after the answer.
    if (error instanceof OtlpError && error.code === 'payload_too_large') reply.header('connection', 'close');
    throw error;
  }
  const read = performance.now();
  const decoded = decoders[format](body);
  const parsed = performance.now();
  ingestPhaseDuration.observe({ phase: 'read' }, (read - started) / 1000);
  ingestPhaseDuration.observe({ phase: 'decode' }, (parsed - read) / 1000);
  return pendingSpans(decoded, priceOf);
}
