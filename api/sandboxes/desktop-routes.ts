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
import { desktopStatus, type Sandbox } from '../../domain/sandboxes/sandbox.ts';
import { checkRegion, positionOutsideScreen } from '../../domain/sandboxes/screen-geometry.ts';
import type { Desktop } from '../../sandbox-runtime/desktop/index.ts';
import { sandboxErrorResponses as errors } from '../error-responses.ts';
import { guard } from './access.ts';
import { accessibilityAnswer, bytesAnswer, data, desktopStatusAnswer, inputAnswer } from './answers.ts';
import { idParams, parse, type SandboxContext } from './context.ts';
import { startDesktop, stopDesktop } from './desktop.ts';
import { desktopNotConfigured } from './errors.ts';

// The desktop routes of the spec's Endpoints table. A key with `sandboxes:write` or a sandbox
// token for this sandbox (`view` for status and screenshot, `control` for the rest). Each call
// on a running desktop is a use of the sandbox (the idle timeout).
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
  const { access, commands } = ctx;
  const route = (name: keyof typeof sandboxRoutes) => ({
    method: sandboxRoutes[name].method,
    url: sandboxRoutes[name].path,
    onRequest: guard(app, name),
  });
  const driver = (): Desktop => {
    if (!ctx.desktop) throw desktopNotConfigured();
    return ctx.desktop;
  };
  /** A call on the running desktop of a running sandbox, recorded as a use. */
  const onDesktop = <T>(sandbox: Sandbox, task: (desktop: Desktop) => Promise<T>) => {
    const running = requireDesktop(sandbox);
    const desktop = driver();
    return commands.use(running, () => task(desktop));
  };

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
      const body = parse(desktopActionBody, request.body);
      const { loaded } = await access.forRequest(request, 'desktop.action');
      const desktop = driver();
      const sandbox =
        body.action === 'start'
          ? await commands.use(loaded.sandbox, () =>
              startDesktop(commands, desktop, loaded.sandbox, body.resolution),
            )
          : await stopDesktop(commands, desktop, loaded.sandbox);
      return { data: desktopStatus(sandbox.desktop) };
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
      const { desktop: screen } = requireDesktop(loaded.sandbox);
      const outside = positionOutsideScreen(
        screen.size,
        action as Partial<Record<'x' | 'y' | 'to_x' | 'to_y', number>>,
      );
      if (outside) throw invalidRequest(outside.param, outside.message);
      return { data: await onDesktop(loaded.sandbox, (desktop) => desktop.input(loaded.sandbox.id, action)) };
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
      const { region } = parse(screenshotQuery, request.query);
      const { loaded } = await access.forRequest(request, 'desktop.screenshot');
      const { desktop: screen } = requireDesktop(loaded.sandbox);
      if (region) {
        const checked = checkRegion(screen.size, region);
        if (!checked.ok) throw invalidRequest('region', `Invalid \`region\`: ${checked.message}.`);
      }
      const corners = region ? ([...region] as [number, number, number, number]) : undefined;
      const shot = await onDesktop(loaded.sandbox, (desktop) =>
        desktop.screenshot(loaded.sandbox.id, corners),
      );
      return reply
        .type('image/png')
        .header('x-image-width', String(shot.width))
        .header('x-image-height', String(shot.height))
        .send(shot.png);
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
      const query = parse(accessibilityQuery, request.query);
      const { loaded } = await access.forRequest(request, 'desktop.accessibility.tree');
      const options = { app: query.app, depth: query.depth, includeHidden: query.include_hidden };
      return {
        data: await onDesktop(loaded.sandbox, (desktop) =>
          desktop.accessibilityTree(loaded.sandbox.id, options),
        ),
      };
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
      const body = parse(accessibilityActBody, request.body);
      const { loaded } = await access.forRequest(request, 'desktop.accessibility.act');
      return {
        data: await onDesktop(loaded.sandbox, (desktop) => desktop.accessibilityAct(loaded.sandbox.id, body)),
      };
    },
  });
};
