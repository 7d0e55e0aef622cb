import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireExisting, requireRunning } from '../../domain/sandboxes/decide.ts';
import {
  createSandboxBody,
  createTokenBody,
  execBody,
  fileQuery,
  fileSizeLimitBytes,
  forkSandboxBody,
  listSandboxesQuery,
  updateSandboxBody,
} from '../../domain/sandboxes/requests.ts';
import { sandboxRoutes } from '../../domain/sandboxes/routes.ts';
import { mintToken } from '../../domain/sandboxes/tokens.ts';
import { snapshotBody } from '../../domain/templates/requests.ts';
import { hostPath, hostPaths, templateActedOn } from '../../schemas/sandbox-hosts.ts';
import { templateData, templateObject } from '../../schemas/template-answer.ts';
import { sandboxErrorResponses as errors } from '../error-responses.ts';
import { callerOf, guard } from './access.ts';
import {
  bytesAnswer,
  data,
  execAnswer,
  fileWrittenAnswer,
  sandboxData,
  sandboxObject,
  tokenAnswer,
} from './answers.ts';
import { idParams, orEmpty, parse, type SandboxContext } from './context.ts';
import { fileTooLarge } from './errors.ts';
import { actOnHost, changeSandbox, createSandbox, updateSandbox } from './routing.ts';

// The sandbox routes other than the desktop's (domain/sandboxes/routes.ts holds their paths and
// who may call them): one route per client package call. Bodies and queries are parsed in the
// handler with the domain's schemas, so a 422 names its field (`metadata.env`, `idle_timeout_seconds`);
// what acts on a sandbox then goes to the host that holds it (routing.ts), whichever replica this is.

const tags = ['sandboxes'];
const one = data(sandboxObject);

/** The list's query as documented: `metadata[key]=value` per key, and `all`. */
const listQueryDoc = z.object({
  'metadata[key]': z.string().optional().describe('only sandboxes with this key and value; repeat per key'),
  all: z.enum(['true', 'false']).optional().describe('include deleted sandboxes'),
});

export const lifecycleRoutes: FastifyPluginAsyncZod<{ ctx: SandboxContext }> = async (app, { ctx }) => {
  const { access, hosts } = ctx;
  const route = (name: keyof typeof sandboxRoutes, scope = app) => ({
    method: sandboxRoutes[name].method,
    url: sandboxRoutes[name].path,
    onRequest: guard(scope, name),
  });

  app.route({
    ...route('sandboxes.create'),
    schema: {
      tags,
      summary: 'Create a sandbox; answers once it runs',
      body: createSandboxBody,
      response: { 201: one, ...errors('sandboxes.create') },
    },
    handler: async (request, reply) => {
      const body = parse(createSandboxBody, orEmpty(request.body));
      const sandbox = await createSandbox(ctx, callerOf(request).orgId, body, orEmpty(request.body));
      return reply.status(201).send({ data: sandboxData(sandbox) });
    },
  });

  app.route({
    ...route('sandboxes.list'),
    schema: {
      tags,
      summary: 'Sandboxes, newest first',
      querystring: listQueryDoc,
      response: { 200: data(z.array(sandboxObject)), ...errors('sandboxes.list') },
    },
    handler: async (request) => {
      const query = parse(listSandboxesQuery, request.query);
      const sandboxes = await ctx.store.list(callerOf(request).orgId, query);
      return { data: sandboxes.map(sandboxData) };
    },
  });

  app.route({
    ...route('sandboxes.get'),
    schema: {
      tags,
      summary: 'One sandbox, by id or name',
      params: idParams,
      response: { 200: one, ...errors('sandboxes.get') },
    },
    handler: async (request) => {
      const { loaded } = await access.forRequest(request, 'sandboxes.get');
      return { data: sandboxData(requireExisting(loaded.sandbox)) };
    },
  });

  app.route({
    ...route('sandbox.update'),
    schema: {
      tags,
      summary: 'Replace metadata, change the idle timeout or the network policy',
      params: idParams,
      body: updateSandboxBody,
      response: { 200: one, ...errors('sandbox.update') },
    },
    handler: async (request) => {
      const body = parse(updateSandboxBody, orEmpty(request.body));
      const { loaded } = await access.forRequest(request, 'sandbox.update');
      const changes = {
        metadata: body.metadata,
        idleTimeoutSeconds: body.idle_timeout_seconds,
        network: body.network,
      };
      return { data: sandboxData(await updateSandbox(ctx, loaded.sandbox, changes, orEmpty(request.body))) };
    },
  });

  const lifecycle = [
    ['sandbox.stop', 'StopSandbox', 'Stop: files and processes are kept'],
    ['sandbox.resume', 'ResumeSandbox', 'Resume a stopped sandbox; answers once it runs'],
    [
      'sandbox.restart',
      'RestartSandbox',
      'Restart: every process ends, files are kept; answers once it runs',
    ],
    ['sandbox.destroy', 'DestroySandbox', 'Delete the sandbox and its files'],
  ] as const;
  for (const [name, command, summary] of lifecycle) {
    app.route({
      ...route(name),
      schema: { tags, summary, params: idParams, response: { 200: one, ...errors(name) } },
      handler: async (request) => {
        const { loaded } = await access.forRequest(request, name);
        return { data: sandboxData(await changeSandbox(ctx, loaded.sandbox, command)) };
      },
    });
  }

  app.route({
    ...route('sandbox.fork'),
    schema: {
      tags,
      summary: 'A running copy with the same files, metadata and network policy',
      params: idParams,
      body: forkSandboxBody,
      response: { 201: one, ...errors('sandbox.fork') },
    },
    handler: async (request, reply) => {
      parse(forkSandboxBody, orEmpty(request.body));
      const { loaded } = await access.forRequest(request, 'sandbox.fork');
      const source = requireExisting(loaded.sandbox);
      const call = {
        method: 'POST',
        path: hostPath(hostPaths.fork, source.id),
        json: orEmpty(request.body),
      } as const;
      return reply.status(201).send({ data: sandboxData(await actOnHost(ctx, source, call)) });
    },
  });

  app.route({
    ...route('sandbox.snapshot'),
    schema: {
      tags,
      summary: "A template of the sandbox's files as they are now; answers it ready",
      params: idParams,
      body: snapshotBody,
      response: { 201: data(templateObject), ...errors('sandbox.snapshot') },
    },
    handler: async (request, reply) => {
      parse(snapshotBody, request.body);
      const { loaded } = await access.forRequest(request, 'sandbox.snapshot');
      const sandbox = requireRunning(loaded.sandbox);
      const call = {
        method: 'POST',
        path: hostPath(hostPaths.snapshot, sandbox.id),
        json: request.body,
      } as const;
      const acted = await hosts.json(sandbox.host, call, templateActedOn);
      const made = await ctx.templates.byId(acted.template_id);
      if (!made)
        throw new Error(`template ${acted.template_id} is not in the read model after its host made it`);
      return reply.status(201).send({ data: templateData(made.template) });
    },
  });

  app.route({
    ...route('sandbox.exec'),
    schema: {
      tags,
      summary: 'Run a shell command as root and wait',
      params: idParams,
      body: execBody,
      response: { 200: data(execAnswer), ...errors('sandbox.exec') },
    },
    handler: async (request) => {
      parse(execBody, request.body);
      const { loaded } = await access.forRequest(request, 'sandbox.exec');
      const sandbox = requireRunning(loaded.sandbox);
      const call = {
        method: 'POST',
        path: hostPath(hostPaths.exec, sandbox.id),
        json: request.body,
      } as const;
      return { data: await hosts.json(sandbox.host, call, execAnswer) };
    },
  });

  app.route({
    ...route('sandbox.files.read'),
    schema: {
      tags,
      summary: 'Read one file (raw bytes, up to 64 MiB)',
      params: idParams,
      querystring: fileQuery,
      response: {
        200: bytesAnswer('application/octet-stream', "The file's bytes."),
        ...errors('sandbox.files.read'),
      },
    },
    handler: async (request, reply) => {
      const { path } = parse(fileQuery, request.query);
      const { loaded } = await access.forRequest(request, 'sandbox.files.read');
      const sandbox = requireRunning(loaded.sandbox);
      // Streamed through as the host reads it: neither process holds the whole file.
      const file = await hosts.send(sandbox.host, {
        method: 'GET',
        path: hostPath(hostPaths.file, sandbox.id),
        query: { path },
      });
      const length = file.headers['content-length'];
      if (typeof length === 'string') reply.header('content-length', length);
      return reply.type('application/octet-stream').send(file.body);
    },
  });

  // A file's bytes arrive as they are, whatever their content type says (clients often send
  // none, or text/plain): this route has a scope of its own where every body is raw bytes, passed
  // on to the host unread as they arrive (64 MiB at most: a larger declared length is refused
  // here, a longer stream by the host, which keeps the file as it was).
  await app.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    raw.route({
      ...route('sandbox.files.write'),
      schema: {
        tags,
        summary: 'Write one file from the raw body (up to 64 MiB)',
        params: idParams,
        querystring: fileQuery,
        response: { 200: data(fileWrittenAnswer), ...errors('sandbox.files.write') },
      },
      handler: async (request) => {
        const { path } = parse(fileQuery, request.query);
        const length = request.headers['content-length'];
        if (length !== undefined && Number(length) > fileSizeLimitBytes) throw fileTooLarge();
        const { loaded } = await access.forRequest(request, 'sandbox.files.write');
        const sandbox = requireRunning(loaded.sandbox);
        const call = {
          method: 'PUT',
          path: hostPath(hostPaths.file, sandbox.id),
          query: { path },
          stream: { body: request.body as Readable, length },
        } as const;
        return { data: await hosts.json(sandbox.host, call, fileWrittenAnswer) };
      },
    });
  });

  app.route({
    ...route('sandbox.tokens.create'),
    schema: {
      tags,
      summary: 'Mint a sandbox token (API key or dashboard session only)',
      params: idParams,
      body: createTokenBody,
      response: { 201: data(tokenAnswer), ...errors('sandbox.tokens.create') },
    },
    handler: async (request, reply) => {
      const body = parse(createTokenBody, request.body);
      const { caller, loaded } = await access.forRequest(request, 'sandbox.tokens.create');
      const token = mintToken(loaded.sandbox, {
        minter: caller.minter,
        abilities: body.abilities,
        expiresInSeconds: body.expires_in,
        origins: body.origins,
        now: ctx.now(),
      });
      return reply.status(201).send({
        data: {
          token: ctx.tokens.encode(token),
          sandbox: token.sandboxId,
          abilities: token.abilities,
          origins: token.origins,
          expires_at: token.expiresAt.toISOString(),
        },
      });
    },
  });
};
