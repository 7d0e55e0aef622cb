import type { FastifyInstance } from 'fastify';
import { requireDesktop } from '../domain/sandboxes/decide.ts';
import {
  accessibilityActBody,
  accessibilityQuery,
  desktopActionBody,
  screenshotQuery,
} from '../domain/sandboxes/desktop-requests.ts';
import { invalidRequest } from '../domain/sandboxes/errors.ts';
import { inputAction } from '../domain/sandboxes/input-actions.ts';
import type { Sandbox } from '../domain/sandboxes/sandbox.ts';
import { checkRegion, positionOutsideScreen } from '../domain/sandboxes/screen-geometry.ts';
import type { Desktop } from '../sandbox-runtime/desktop/index.ts';
import { hostPaths } from '../schemas/sandbox-hosts.ts';
import { fromCaller, type HostContext, heldSandbox } from './context.ts';
import { startDesktop, stopDesktop } from './desktop.ts';
import { DesktopNotConfigured } from './errors.ts';

// The host's desktop routes: start and stop (recorded through the command shell), and the calls
// on a running desktop (input, screenshots, accessibility), each a use of the sandbox (the idle
// timeout). The API has checked the caller's token; the screen's geometry is checked again here
// against the read model, which only the holder of the sandbox acts on.

type IdParams = { Params: { id: string } };

export function desktopRoutes(app: FastifyInstance, ctx: HostContext): void {
  const { commands } = ctx;
  const driver = (): Desktop => {
    if (!ctx.desktop) throw new DesktopNotConfigured();
    return ctx.desktop;
  };
  /** A call on the running desktop of a sandbox held here, recorded as a use. */
  const onDesktop = async <T>(
    sandboxId: string,
    task: (desktop: Desktop, sandbox: Sandbox) => Promise<T>,
  ) => {
    const sandbox = requireDesktop(await heldSandbox(ctx, sandboxId));
    const desktop = driver();
    return commands.use(sandbox, () => task(desktop, sandbox));
  };

  app.post<IdParams>(hostPaths.desktop, async (request) => {
    const body = fromCaller(desktopActionBody, request.body);
    const sandbox = await heldSandbox(ctx, request.params.id);
    const desktop = driver();
    const after =
      body.action === 'start'
        ? await commands.use(sandbox, () => startDesktop(commands, desktop, sandbox, body.resolution))
        : await stopDesktop(commands, desktop, sandbox);
    return { sandbox_id: after.id };
  });

  app.post<IdParams>(hostPaths.input, async (request) => {
    const action = fromCaller(inputAction, request.body);
    return onDesktop(request.params.id, (desktop, sandbox) => {
      const outside = positionOutsideScreen(
        requireDesktop(sandbox).desktop.size,
        action as Partial<Record<'x' | 'y' | 'to_x' | 'to_y', number>>,
      );
      if (outside) throw invalidRequest(outside.param, outside.message);
      return desktop.input(sandbox.id, action);
    });
  });

  app.get<IdParams>(hostPaths.screenshot, async (request, reply) => {
    const { region } = fromCaller(screenshotQuery, request.query);
    const shot = await onDesktop(request.params.id, (desktop, sandbox) => {
      if (region) {
        const checked = checkRegion(requireDesktop(sandbox).desktop.size, region);
        if (!checked.ok) throw invalidRequest('region', `Invalid \`region\`: ${checked.message}.`);
      }
      const corners = region ? ([...region] as [number, number, number, number]) : undefined;
      return desktop.screenshot(sandbox.id, corners);
    });
    return reply
      .type('image/png')
      .header('x-image-width', String(shot.width))
      .header('x-image-height', String(shot.height))
      .send(shot.png);
  });

  app.get<IdParams>(hostPaths.accessibilityTree, async (request) => {
    const query = fromCaller(accessibilityQuery, request.query);
    const options = { app: query.app, depth: query.depth, includeHidden: query.include_hidden };
    return onDesktop(request.params.id, (desktop, sandbox) => desktop.accessibilityTree(sandbox.id, options));
  });

  app.post<IdParams>(hostPaths.accessibilityAct, async (request) => {
    const body = fromCaller(accessibilityActBody, request.body);
    return onDesktop(request.params.id, (desktop, sandbox) => desktop.accessibilityAct(sandbox.id, body));
  });
}
