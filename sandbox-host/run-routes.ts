import type { FastifyInstance } from 'fastify';
import { RunError } from '../domain/runs/errors.ts';
import { placeRunBody } from '../domain/runs/requests.ts';
import { runData } from '../schemas/run-answer.ts';
import { hostPaths, placeRunOnHost, stopRunOnHost } from '../schemas/sandbox-hosts.ts';
import { fromCaller, type HostContext } from './context.ts';

// The host's run routes: a run is carried out on the host that holds its sandbox (runner.ts), so
// an API replica that restarts or dies leaves it running, and any replica follows its output in
// the read model. The API checked the caller, their credit and the size before forwarding.

type IdParams = { Params: { id: string } };

export function runRoutes(app: FastifyInstance, ctx: HostContext): void {
  app.post(hostPaths.placeRun, async (request) => {
    const placement = fromCaller(placeRunOnHost, request.body);
    const body = fromCaller(placeRunBody, placement.body);
    const files = body.files.map((file) => ({
      path: file.path,
      bytes: Buffer.from(file.contents_base64, 'base64'),
    }));
    // A run's sandbox from a template is placed where the template is (the API chose this host).
    const template =
      body.template === undefined ? null : await ctx.commands.readyTemplate(placement.org_id, body.template);
    const run = await ctx.runner.place(
      {
        orgId: placement.org_id,
        runId: placement.run_id,
        body,
        template: template?.id ?? null,
        placedBy: placement.placed_by,
        hasCredit: placement.has_credit,
        sizeAvailable: placement.size_available,
      },
      { files, env: body.env },
    );
    return { data: runData(run, new Date()) };
  });

  app.post<IdParams>(hostPaths.stopRun, async (request) => {
    const { stopped_by } = fromCaller(stopRunOnHost, request.body);
    const loaded = await ctx.runs.byId(request.params.id);
    if (!loaded || loaded.run.host !== ctx.hostId) throw new RunError('not_found');
    return { data: runData(await ctx.runner.stop(loaded, stopped_by), new Date()) };
  });
}
