import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idempotencyKeyHeader, readIdempotencyKey } from '../../domain/idempotency.ts';
import type { Scope } from '../../domain/orgs/events.ts';
import { refusePlacement } from '../../domain/runs/decide.ts';
import { RunError } from '../../domain/runs/errors.ts';
import type { Actor } from '../../domain/runs/events.ts';
import { newRunId } from '../../domain/runs/names.ts';
import {
  outputQuery,
  placeRunBody,
  placeRunBodyLimitBytes,
  runListQuery,
} from '../../domain/runs/requests.ts';
import { isActive } from '../../domain/runs/run.ts';
import { noRoomMessage } from '../../domain/sandboxes/hosts.ts';
import { parseSandboxBody } from '../../domain/sandboxes/parse.ts';
import type { Template } from '../../domain/templates/template.ts';
import { textWithoutNul } from '../../domain/text.ts';
import type { Logger } from '../../platform/logger.ts';
import type { PgPool } from '../../platform/postgres.ts';
import { runData, runObject } from '../../schemas/run-answer.ts';
import { hostPath, hostPaths, runActedOn } from '../../schemas/sandbox-hosts.ts';
import { fingerprint, IdempotencyKeys } from '../../stores/idempotency-keys.ts';
import { type Loaded, RunStore } from '../../stores/runs.ts';
import { TemplateStore } from '../../stores/templates.ts';
import type { OrgDirectory } from '../auth/org-directory.ts';
import { errorResponses } from '../error-responses.ts';
import { ApiError, unauthorized } from '../errors.ts';
import { parsedInHandler, parsedOrRefused } from '../request-validation.ts';
import type { Fleet } from '../sandboxes/fleet.ts';
import { type HostClient, HostNotReached } from '../sandboxes/host-client.ts';
import { placement as placementOf, readyTemplate, templateHostFull } from '../sandboxes/routing.ts';
import { data, outputAnswer, resultAnswer } from './answers.ts';
import { catalog, catalogAnswer } from './catalog.ts';
import { runErrorHandler } from './errors.ts';
import { outputStream } from './output.ts';

/** What the run surface runs with (ApiDeps.runs). */
export interface RunDeps {
  /** The clock of costs. */
  now?: () => Date;
}

export interface RunPluginOptions extends RunDeps {
  directory: OrgDirectory;
  pool: PgPool;
  logger: Logger;
  fleet: Fleet;
  hosts: HostClient;
}

/** Runs use the sandboxes' scope: the command-line tool's login key has it (spec 002, "Authentication" 1). */
const runScope: Scope = 'sandboxes:write';

const tags = ['runs'];
const nameParams = z.object({
  name: textWithoutNul().describe('a run id (`run_…`) or its name (the newest run of that name)'),
});

/** Documents the header; it is read in the handler (`idempotencyKeyOf`), as bodies are. */
const idempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .optional()
    .describe(
      'up to 255 printable ASCII characters (a UUID): a retry with the same key and body within 24 hours answers the run the first attempt placed, placing and billing nothing more',
    ),
});

/** The Idempotency-Key header, when sent (domain/idempotency.ts); a malformed one is the 422 naming it. */
function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  const read = readIdempotencyKey(header);
  if (read.ok) return read.value;
  throw new RunError('invalid_request', { param: idempotencyKeyHeader, message: read.message });
}

/** Parses a body or query with the sandbox surface's words; a refusal is a 422 naming the field. */
const parse = <S extends z.ZodType>(schema: S, input: unknown): z.output<S> =>
  parsedOrRefused(parseSandboxBody(schema, input));

/**
 * Runs (issue 16): a command in a fresh sandbox of a catalog size, with the caller's files,
 * environment and spend ceiling; its output by stream and sequence number, its result, its cost.
 * An API key with `sandboxes:write` places, reads and stops runs; a dashboard session reads and
 * stops them. README "Runs" lists the routes.
 */
export const runsPlugin: FastifyPluginAsyncZod<RunPluginOptions> = async (app, opts) => {
  app.setErrorHandler(runErrorHandler);
  app.setValidatorCompiler(parsedInHandler);
  const now = opts.now ?? (() => new Date());
  const { fleet, hosts } = opts;
  const store = new RunStore(opts.pool);
  const keys = new IdempotencyKeys(opts.pool);
  const templates = new TemplateStore(opts.pool);
  const readers = app.requireKeyOrSession(runScope);

  /** Who is calling, as a run records it. */
  const actorOf = (request: FastifyRequest): Actor => {
    const principal = request.principal;
    if (!principal) throw unauthorized();
    if (principal.kind === 'member') return { kind: 'person', personId: principal.personId };
    const key = opts.directory.org(principal.orgId)?.keys[principal.keyId];
    return { kind: 'key', keyId: principal.keyId, personId: key?.createdBy || null };
  };

  const runOf = async (request: FastifyRequest): Promise<Loaded> => {
    const { name } = request.params as { name: string };
    const loaded = await store.resolve(request.principal!.orgId, name);
    if (!loaded) throw new RunError('not_found');
    return loaded;
  };

  app.post(
    '/runs',
    {
      onRequest: app.requireKey(runScope),
      bodyLimit: placeRunBodyLimitBytes,
      schema: {
        tags,
        summary: 'Place a run: a command in a fresh sandbox with files, environment and a spend ceiling',
        headers: idempotencyHeaders,
        body: placeRunBody,
        response: { 201: data(runObject), ...errorResponses('runs.create') },
      },
    },
    async (request, reply) => {
      const body = parse(placeRunBody, request.body);
      const idempotencyKey = idempotencyKeyOf(request.headers['idempotency-key']);
      const orgId = request.principal!.orgId;
      // A placing is its run id: new, or the first attempt's for a retried Idempotency-Key.
      let runId: string | undefined;
      if (idempotencyKey !== undefined) {
        const claimed = await keys.claim(orgId, idempotencyKey, {
          requestId: newRunId(randomBytes),
          occurredAt: now(),
          fingerprint: fingerprint('POST /api/runs', request.body),
        });
        if (!claimed.sameRequest)
          throw new RunError('idempotency_key_reused', { param: idempotencyKeyHeader });
        runId = claimed.requestId;
        // Placed already (the answer was lost): that run, as it is now, and nothing placed or
        // billed again, whatever the org's credit or the fleet's room are since.
        const first = await store.resolve(orgId, runId);
        if (first) {
          reply.header('idempotent-replayed', 'true');
          return reply.status(201).send({ data: runData(first.run, now()) });
        }
      }
      const checks = {
        hasCredit: opts.directory.hasCredit(orgId),
        sizeAvailable: await fleet.holdsSize(body.size),
      };
      refusePlacement({ ...checks, size: body.size, ceilingMicrodollars: body.ceiling_cents });
      const template =
        body.template === undefined ? undefined : await readyTemplate({ templates }, orgId, body.template);
      const placement = {
        org_id: orgId,
        ...(runId === undefined ? {} : { run_id: runId }),
        placed_by: actorOf(request),
        has_credit: checks.hasCredit,
        size_available: checks.sizeAvailable,
        body: request.body,
      };
      return reply.status(201).send(await placeOnHost(placement, body.size, template));
    },
  );

  app.get(
    '/runs',
    {
      onRequest: readers,
      schema: {
        tags,
        summary: 'Runs, newest first; `status=active` for those holding hardware',
        querystring: runListQuery,
        response: { 200: data(z.array(runObject)), ...errorResponses('runs.list') },
      },
    },
    async (request) => {
      const query = parse(runListQuery, request.query);
      const runs = await store.list(request.principal!.orgId, {
        active: query.status === 'active',
        limit: query.limit,
      });
      const at = now();
      return { data: runs.map((run) => runData(run, at)) };
    },
  );

  app.get(
    '/runs/:name',
    {
      onRequest: readers,
      schema: {
        tags,
        summary: 'One run, by id or name',
        params: nameParams,
        response: { 200: data(runObject), ...errorResponses('run.read') },
      },
    },
    async (request) => ({ data: runData((await runOf(request)).run, now()) }),
  );

  app.get(
    '/runs/:name/output',
    {
      onRequest: readers,
      schema: {
        tags,
        summary: "The run's output as NDJSON; `follow=true` stays open until the run ends",
        params: nameParams,
        querystring: outputQuery,
        response: { 200: outputAnswer, ...errorResponses('run.read') },
      },
    },
    async (request, reply) => {
      const query = parse(outputQuery, request.query);
      const { run } = await runOf(request);
      const { body, close } = outputStream({ store, now, logger: opts.logger }, run.id, query);
      request.raw.once('close', close);
      reply.raw.once('close', close);
      return reply.type('application/x-ndjson; charset=utf-8').header('cache-control', 'no-store').send(body);
    },
  );

  app.post(
    '/runs/:name/stop',
    {
      onRequest: readers,
      schema: {
        tags,
        summary: 'Stop a run (answered with the run as it ended, whether it stopped it or it had ended)',
        params: nameParams,
        response: { 200: data(runObject), ...errorResponses('run.read') },
      },
    },
    async (request) => {
      const loaded = await runOf(request);
      if (!isActive(loaded.run.status)) return { data: runData(loaded.run, now()) };
      return stopOnHost(loaded, actorOf(request));
    },
  );

  app.get(
    '/runs/:name/result',
    {
      onRequest: readers,
      schema: {
        tags,
        summary: 'The JSON object the run wrote to $ORRERY_RESULT_PATH',
        params: nameParams,
        response: { 200: resultAnswer, ...errorResponses('run.result') },
      },
    },
    async (request) => {
      const { run } = await runOf(request);
      if (run.result !== null) return { data: JSON.parse(run.result) as Record<string, unknown> };
      if (isActive(run.status)) throw new RunError('not_finished');
      if (run.resultRefused !== null)
        throw new RunError('no_result', { message: `The run's result was not kept: ${run.resultRefused}` });
      throw new RunError('no_result');
    },
  );

  app.get(
    '/catalog',
    {
      onRequest: app.requireKeyOrSession(),
      schema: {
        tags: ['runs'],
        summary: 'The hardware sizes a run may use: cores, memory, price, availability',
        response: { 200: catalogAnswer, ...errorResponses('catalog') },
      },
    },
    async () => catalog((size) => fleet.holdsSize(size)),
  );

  /**
   * A run goes to a host with room for its size, as a sandbox does, and the host carries it out;
   * a host that is full or was not reached is passed for the next.
   */
  async function placeOnHost(
    placement: Record<string, unknown>,
    size: Loaded['run']['size'],
    template: Template | undefined,
  ) {
    for (const host of await placementOf({ fleet }, size, template)) {
      try {
        const call = { method: 'POST', path: hostPaths.placeRun, json: placement } as const;
        return await hosts.json(host.hostId, call, runActedOn);
      } catch (error) {
        if (error instanceof HostNotReached) continue;
        if (error instanceof ApiError && error.code === 'no_capacity') continue;
        throw error;
      }
    }
    if (template) throw templateHostFull(template, size);
    throw new ApiError('no_capacity', 503, noRoomMessage(size), undefined, { 'retry-after': '10' });
  }

  /** A run is stopped by the host carrying it out, which answers it as it ended. */
  function stopOnHost(loaded: Loaded, by: ReturnType<typeof actorOf>) {
    const call = {
      method: 'POST',
      path: hostPath(hostPaths.stopRun, loaded.run.id),
      json: { stopped_by: by },
    } as const;
    return hosts.json(loaded.run.host, call, runActedOn);
  }
};
