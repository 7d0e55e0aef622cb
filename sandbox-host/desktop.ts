import type { DesktopEndpoints } from '../domain/sandboxes/events.ts';
import type { Sandbox } from '../domain/sandboxes/sandbox.ts';
import type { ScreenSize } from '../domain/sandboxes/screen-geometry.ts';
import type { Desktop, DesktopInfo } from '../sandbox-runtime/desktop/index.ts';
import type { SandboxCommands } from './commands.ts';

// The desktop's two steps, like a sandbox's start (domain/sandboxes/events.ts): the host records
// `DesktopStartRequested`, starts the desktop (resolving when the browser is ready), and records
// `DesktopStarted` with what the status shows. A desktop left `starting` (a start
// cut short) is started again by the next `start`.

/** What the status shows (`devtools`: the browser's DevTools HTTP endpoint inside the sandbox). */
export function endpointsOf(info: DesktopInfo): DesktopEndpoints {
  const { display, vncPort, devtools, browser } = info;
  return { display, vncPort, devtools, browser };
}

export function startDesktop(
  commands: SandboxCommands,
  desktop: Desktop,
  sandbox: Sandbox,
  size: ScreenSize | undefined,
): Promise<Sandbox> {
  return commands.onSandbox(sandbox.id, async (loaded) => {
    const requested = await commands.execute(commands.command(sandbox, 'StartDesktop', { size }), loaded);
    const wanted = requested.sandbox.desktop;
    if (wanted?.status !== 'starting') return requested;
    let info: DesktopInfo;
    try {
      info = await desktop.start(sandbox.id, wanted.size);
    } catch (error) {
      // Not started: record it as stopped, so the status does not stay "starting" forever.
      await commands.execute(commands.command(sandbox, 'StopDesktop'), requested);
      throw error;
    }
    const ready = commands.command(sandbox, 'ReportDesktopReady', { endpoints: endpointsOf(info) });
    return commands.execute(ready, requested);
  });
}

/** Stopping also ends the screens watching it. */
export async function stopDesktop(
  commands: SandboxCommands,
  desktop: Desktop,
  sandbox: Sandbox,
): Promise<Sandbox> {
  const stopped = await commands.onSandbox(sandbox.id, async (loaded) => {
    const after = await commands.execute(commands.command(sandbox, 'StopDesktop'), loaded);
    // Also when the read model had no desktop: one may run after a start cut short.
    await desktop.stop(sandbox.id);
    return after;
  });
  commands.tellUnusable(sandbox.id, 'desktop stopped');
  return stopped;
}
