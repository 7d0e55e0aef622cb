import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { FastifyInstance } from 'fastify';
import { requireRunning } from '../domain/sandboxes/decide.ts';
import {
  createSandboxBody,
  execBody,
  fileQuery,
  fileSizeLimitBytes,
  forkSandboxBody,
  updateSandboxBody,
} from '../domain/sandboxes/requests.ts';
import { type ActedOn, changeOnHost, createOnHost, hostPaths } from '../schemas/sandbox-hosts.ts';
import { fromCaller, type HostContext, heldSandbox } from './context.ts';

// The host's routes for a sandbox's lifecycle, exec and files (schemas/sandbox-hosts.ts): what the
// API's routes of the same names forward once they have authorized the caller. Each loads the
// sandbox from the read model, checks this host holds it, and acts through the command shell.

type IdParams = { Params: { id: string } };

const acted = (sandboxId: string): ActedOn => ({ sandbox_id: sandboxId });

export function sandboxRoutes(app: FastifyInstance, ctx: HostContext): void {
  const { commands, runtime } = ctx;

  app.post(hostPaths.create, async (request) => {
    const { org_id, body } = fromCaller(createOnHost, request.body);
    const sandbox = await commands.create(org_id, fromCaller(createSandboxBody, body ?? {}));
    return acted(sandbox.id);
  });

  /** A create's retry that found the sandbox its first attempt made, held here: bring it up. */
  app.post<IdParams>(hostPaths.converge, async (request) => {
    const sandbox = await heldSandbox(ctx, request.params.id);
    return acted((await commands.bringHostInLine(sandbox.id)).id);
  });

  app.post<IdParams>(hostPaths.fork, async (request) => {
    const source = await heldSandbox(ctx, request.params.id);
    const { name } = fromCaller(forkSandboxBody, request.body ?? {});
    return acted((await commands.fork(source, name)).id);
  });

  app.post<IdParams>(hostPaths.change, async (request) => {
    const { command } = fromCaller(changeOnHost, request.body);
    const sandbox = await heldSandbox(ctx, request.params.id);
    return acted((await commands.change(sandbox, command)).id);
  });

  app.post<IdParams>(hostPaths.update, async (request) => {
    const body = fromCaller(updateSandboxBody, request.body ?? {});
    const sandbox = await heldSandbox(ctx, request.params.id);
    return acted((await commands.update(sandbox, body)).id);
  });

  app.post<IdParams>(hostPaths.exec, async (request) => {
    const body = fromCaller(execBody, request.body);
    const sandbox = requireRunning(await heldSandbox(ctx, request.params.id));
    const options = { cwd: body.cwd, env: body.env, timeoutSeconds: body.timeout_seconds };
    const outcome = await commands.use(sandbox, () => runtime.exec(sandbox.id, body.command, options));
    return outcome.result;
  });

  /** The file's bytes as they stream out of the sandbox; its size (known before the first byte) as the length. */
  app.get<IdParams>(hostPaths.file, async (request, reply) => {
    const { path } = fromCaller(fileQuery, request.query);
    const sandbox = requireRunning(await heldSandbox(ctx, request.params.id));
    await commands.use(sandbox, async () => {
      const file = await runtime.openFile(sandbox.id, path);
      reply
        .type('application/octet-stream')
        .header('content-length', String(file.sizeBytes))
        .send(file.bytes);
      await finished(reply.raw).catch(() => undefined);
    });
    return reply;
  });

  // The file's bytes stream in as they come (the API passes the caller's body on unread); the
  // runtime counts them against the limit, and keeps the file as it was if the body fails.
  app.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    raw.put<IdParams>(hostPaths.file, { bodyLimit: fileSizeLimitBytes + 1 }, async (request) => {
      const { path } = fromCaller(fileQuery, request.query);
      const sandbox = requireRunning(await heldSandbox(ctx, request.params.id));
      const declared = request.headers['content-length'];
      const declaredBytes = declared === undefined ? undefined : Number(declared);
      return commands.use(sandbox, () =>
        runtime.writeFileFrom(sandbox.id, path, request.body as Readable, { declaredBytes }),
      );
    });
  });
}
