import cors from '@fastify/cors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireDesktop, requireExisting } from '../../domain/sandboxes/decide.ts';
import {
  accessibilityActBody,
  accessibilityQuery,
  desktopActionBody,
  screenshotQuery,
} from '../../domain/sandboxes/desktop-requests.ts';
import { invalidRequest } from '../../domain/sandboxes/errors.ts';
import { inputAction } from '../../domain/sandboxes/input-actions.ts';
import { sandboxRoutes } from '../../domain/sandboxes/routes.ts';
import { desktopStatus } from '../../domain/sandboxes/sandbox.ts';
import { checkRegion, positionOutsideScreen } from '../../domain/sandboxes/screen-geometry.ts';
import { hostPath, hostPaths } from '../../schemas/sandbox-hosts.ts';
import { sandboxErrorResponses as errors } from '../error-responses.ts';
import { guard } from './access.ts';
import { accessibilityAnswer, bytesAnswer, data, desktopStatusAnswer, inputAnswer } from './answers.ts';
import { idParams, parse, type SandboxContext } from './context.ts';
import { actOnHost } from './routing.ts';

// The desktop routes of the spec's Endpoints table. A key with `sandboxes:write` or a sandbox
// token for this sandbox (`view` for status and screenshot, `control` for the rest), checked
// here; the call itself goes to the host that holds the sandbox, where each call on a running
// desktop is a use of the sandbox (the idle timeout). Positions and regions outside the screen
// are refused here from the read model, before anything crosses to the host.
//
// A page drives the desktop with a sandbox token (`Client.fromToken`), from its own origin, so
// these routes answer CORS: any origin may ask, and the token decides (Authentication 5: an
// `Origin` not in its `origins` is 403 `origin_refused`, readable by the page). The credential is
// a bearer header, never a cookie, so a page without the token gains nothing by asking.

const tags = ['desktop'];

export const desktopRoutes: FastifyPluginAsyncZod<{ ctx: SandboxContext }> = async (app, { ctx }) => {
  await app.register(cors, {
    origin: true,
    methods: ['GET', 'POST'],
    allowedHeaders: ['authorization', 'content-type'],
    exposedHeaders: ['x-image-width', 'x-image-height'],
    maxAge: 600,
  });
  const { access, hosts } = ctx;
  const route = (name: keyof typeof sandboxRoutes) => ({
    method: sandboxRoutes[name].method,
    url: sandboxRoutes[name].path,
    onRequest: guard(app, name),
  });

  app.route({
    ...route('desktop.status'),
    schema: {
      tags,
      summary: 'The desktop status',
      params: idParams,
      response: { 200: data(desktopStatusAnswer), ...errors('desktop.status') },
    },
    handler: async (request) => {
      const { loaded } = await access.forRequest(request, 'desktop.status');
      return { data: desktopStatus(requireExisting(loaded.sandbox).desktop) };
    },
  });

  app.route({
    ...route('desktop.action'),
    schema: {
      tags,
      summary: 'Start (resolves once the browser is ready) or stop the desktop',
      params: idParams,
      body: desktopActionBody,
      response: { 200: data(desktopStatusAnswer), ...errors('desktop.action') },
    },
    handler: async (request) => {
      parse(desktopActionBody, request.body);
      const { loaded } = await access.forRequest(request, 'desktop.action');
      const sandbox = requireExisting(loaded.sandbox);
      const call = {
        method: 'POST',
        path: hostPath(hostPaths.desktop, sandbox.id),
        json: request.body,
      } as const;
      return { data: desktopStatus((await actOnHost(ctx, sandbox, call)).desktop) };
    },
  });

  app.route({
    ...route('desktop.input'),
    schema: {
      tags,
      summary: 'One pointer or keyboard action',
      params: idParams,
      body: inputAction,
      response: { 200: data(inputAnswer), ...errors('desktop.input') },
    },
    handler: async (request) => {
      const action = parse(inputAction, request.body);
      const { loaded } = await access.forRequest(request, 'desktop.input');
      const sandbox = requireDesktop(loaded.sandbox);
      const outside = positionOutsideScreen(
        sandbox.desktop.size,
        action as Partial<Record<'x' | 'y' | 'to_x' | 'to_y', number>>,
      );
      if (outside) throw invalidRequest(outside.param, outside.message);
      const call = {
        method: 'POST',
        path: hostPath(hostPaths.input, sandbox.id),
        json: request.body,
      } as const;
      return { data: await hosts.json(sandbox.host, call, inputAnswer) };
    },
  });

  app.route({
    ...route('desktop.screenshot'),
    schema: {
      tags,
      summary: 'A PNG of the screen or a region of it (headers x-image-width, x-image-height)',
      params: idParams,
      querystring: z.object({ region: z.string().optional().describe('x0,y0,x1,y1') }),
      response: { 200: bytesAnswer('image/png', 'The screenshot.'), ...errors('desktop.screenshot') },
    },
    handler: async (request, reply) => {
      const query = request.query as { region?: string };
      const { region } = parse(screenshotQuery, query);
      const { loaded } = await access.forRequest(request, 'desktop.screenshot');
      const sandbox = requireDesktop(loaded.sandbox);
      if (region) {
        const checked = checkRegion(sandbox.desktop.size, region);
        if (!checked.ok) throw invalidRequest('region', `Invalid \`region\`: ${checked.message}.`);
      }
      const shot = await hosts.send(sandbox.host, {
        method: 'GET',
        path: hostPath(hostPaths.screenshot, sandbox.id),
        query: { region: query.region },
      });
      for (const header of ['x-image-width', 'x-image-height']) {
        const value = shot.headers[header];
        if (typeof value === 'string') reply.header(header, value);
      }
      // A screenshot is small and wanted whole: taken in one piece, it goes out in one write.
      return reply.type('image/png').send(Buffer.from(await shot.body.arrayBuffer()));
    },
  });

  app.route({
    ...route('desktop.accessibility.tree'),
    schema: {
      tags,
      summary: 'The accessibility tree',
      params: idParams,
      querystring: z.object({
        app: z.string().optional(),
        depth: z.string().optional().describe('1 to 200'),
        include_hidden: z.enum(['true', 'false']).optional(),
      }),
      response: { 200: accessibilityAnswer, ...errors('desktop.accessibility.tree') },
    },
    handler: async (request) => {
      parse(accessibilityQuery, request.query);
      const { loaded } = await access.forRequest(request, 'desktop.accessibility.tree');
      const sandbox = requireDesktop(loaded.sandbox);
      const call = {
        method: 'GET',
        path: hostPath(hostPaths.accessibilityTree, sandbox.id),
        query: request.query as Record<string, string | undefined>,
      } as const;
      return { data: await hosts.json(sandbox.host, call, accessibilityAnswer.shape.data) };
    },
  });

  app.route({
    ...route('desktop.accessibility.act'),
    schema: {
      tags,
      summary: "Act on a node of the tree (`press`, `focus`, `set-text`, `read`, or the node's own)",
      params: idParams,
      body: accessibilityActBody,
      response: { 200: accessibilityAnswer, ...errors('desktop.accessibility.act') },
    },
    handler: async (request) => {
      parse(accessibilityActBody, request.body);
      const { loaded } = await access.forRequest(request, 'desktop.accessibility.act');
      const sandbox = requireDesktop(loaded.sandbox);
      const call = {
        method: 'POST',
        path: hostPath(hostPaths.accessibilityAct, sandbox.id),
        json: request.body,
      } as const;
      return { data: await hosts.json(sandbox.host, call, accessibilityAnswer.shape.data) };
    },
  });
};
