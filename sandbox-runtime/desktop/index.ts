import type { Duplex } from 'node:stream';
import type { AccessibilityNode, NodeActionResult } from '../../domain/sandboxes/accessibility.ts';
import { invalidRequest, SandboxError } from '../../domain/sandboxes/errors.ts';
import type { InputAction, InputResult } from '../../domain/sandboxes/input-actions.ts';
import {
  checkRegion,
  positionOutsideScreen,
  type Region,
  resolutionLimits,
  type ScreenSize,
} from '../../domain/sandboxes/screen-geometry.ts';
import type { SandboxRuntime } from '../runtime.ts';
import { actOnAccessibilityNode, readAccessibilityTree } from './accessibility.ts';
import { browserName, CdpError, CdpTimeout, openTabs, waitForTab, withBrowser } from './cdp.ts';
import { cursorScript, inputScript, parseCursor } from './input.ts';
import {
  type DesktopState,
  desktopPorts,
  readState,
  saveState,
  startProcesses,
  stopProcesses,
} from './processes.ts';
import { type Screenshot, takeScreenshot } from './screenshot.ts';
import { display, runShellOk, ShellFailed } from './shell.ts';

export type { RfbMode } from './rfb-filter.ts';
export { createRfbFilter, rfbFilterStream } from './rfb-filter.ts';

// The desktop of a sandbox (spec, "Desktop status", "Desktop transitions", "Input actions",
// "Desktop methods of the client package"), over the sandbox runtime: its processes live inside
// the sandbox (processes.ts), input goes through xdotool (input.ts) or the browser's DevTools
// (cdp.ts), screenshots through ImageMagick (screenshot.ts). The HTTP routes call this module
// after parsing; it still refuses positions and regions outside the screen, which only it knows.
//
// Refusals are SandboxErrors: `no_desktop` (not running), `desktop_refused` (the desktop could not
// do the action), `not_running` (the sandbox is stopped, from the runtime), `invalid_request`.

export interface DesktopInfo {
  display: string;
  width: number;
  height: number;
  vncPort: number;
  devtoolsPort: number;
  /** The DevTools HTTP endpoint as seen from inside the sandbox (the domain's `devtools`). */
  devtools: string;
  browser: string;
  startedAt: string;
}

export interface Desktop {
  /** Resolves when the browser is ready (within `startSeconds`); a running desktop of that size is kept. */
  start(sandboxId: string, resolution: ScreenSize): Promise<DesktopInfo>;
  stop(sandboxId: string): Promise<void>;
  /** Forgets what it knew of the sandbox's desktop, whose processes ended (a restart, a destroy). */
  forget(sandboxId: string): void;
  status(sandboxId: string): Promise<DesktopInfo | undefined>;
  input(sandboxId: string, action: InputAction): Promise<InputResult>;
  screenshot(sandboxId: string, region?: Region): Promise<Screenshot>;
  accessibilityTree(
    sandboxId: string,
    options: { app?: string; depth: number; includeHidden: boolean },
  ): Promise<AccessibilityNode>;
  accessibilityAct(
    sandboxId: string,
    request: { ref: string; action: string; text?: string },
  ): Promise<NodeActionResult>;
  /** A byte stream to the sandbox's VNC server (RFB 3.8), for the live screen proxy. */
  connectVnc(sandboxId: string): Promise<Duplex>;
}

/** Spec, "Limits": desktop start, ready within about 60 seconds. */
export const startSeconds = 55;

function infoOf(state: DesktopState): DesktopInfo {
  const { display, width, height, vncPort, devtoolsPort, browser, startedAt } = state;
  const devtools = `http://127.0.0.1:${devtoolsPort}`;
  return { display, width, height, vncPort, devtoolsPort, devtools, browser, startedAt };
}

function checkResolution(size: ScreenSize): void {
  for (const axis of ['width', 'height'] as const) {
    const { min, max } = resolutionLimits[axis];
    if (!Number.isInteger(size[axis]) || size[axis] < min || size[axis] > max) {
      throw invalidRequest('resolution', `resolution ${axis} must be from ${min} to ${max}`);
    }
  }
}

/** The position fields an action carries, for `positionOutsideScreen`. */
function positionsOf(action: InputAction): Partial<Record<'x' | 'y' | 'to_x' | 'to_y', number>> {
  const fields: Record<string, unknown> = { ...action };
  const positions: Partial<Record<'x' | 'y' | 'to_x' | 'to_y', number>> = {};
  for (const name of ['x', 'y', 'to_x', 'to_y'] as const) {
    const value = fields[name];
    if (typeof value === 'number') positions[name] = value;
  }
  return positions;
}

export function createDesktop(runtime: SandboxRuntime): Desktop {
  /** What each sandbox's desktop is, as last read; checked again whenever an action fails. */
  const known = new Map<string, DesktopState>();
  const queues = new Map<string, Promise<unknown>>();

  /** start and stop of one sandbox run one at a time. */
  function serial<T>(sandboxId: string, task: () => Promise<T>): Promise<T> {
    const next = (queues.get(sandboxId) ?? Promise.resolve()).then(task, task);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    queues.set(sandboxId, settled);
    void settled.then(() => {
      if (queues.get(sandboxId) === settled) queues.delete(sandboxId);
    });
    return next;
  }

  async function read(sandboxId: string): Promise<DesktopState | undefined> {
    const state = await readState(runtime, sandboxId);
    if (state) known.set(sandboxId, state);
    else known.delete(sandboxId);
    return state;
  }

  async function running(sandboxId: string): Promise<DesktopState> {
    const state = known.get(sandboxId) ?? (await read(sandboxId));
    if (!state) throw new SandboxError('no_desktop');
    return state;
  }

  /** Runs `work` on the running desktop; a failure is `no_desktop` if the desktop is gone meanwhile. */
  async function onDesktop<T>(sandboxId: string, work: (state: DesktopState) => Promise<T>): Promise<T> {
    const state = await running(sandboxId);
    try {
      return await work(state);
    } catch (error) {
      if (error instanceof SandboxError) throw error;
      if (!(await read(sandboxId))) throw new SandboxError('no_desktop');
      if (error instanceof ShellFailed || error instanceof CdpError || error instanceof CdpTimeout) {
        throw new SandboxError('desktop_refused', {
          message: `The desktop could not do this: ${error.message}`,
        });
      }
      throw error;
    }
  }

  async function start(sandboxId: string, size: ScreenSize): Promise<DesktopInfo> {
    const existing = await read(sandboxId);
    if (existing && existing.width === size.width && existing.height === size.height) return infoOf(existing);
    known.delete(sandboxId);
    const devtoolsPath = await startProcesses(runtime, sandboxId, size, startSeconds);
    try {
      const browser = await withBrowser(runtime, sandboxId, devtoolsPath, async (cdp) => {
        await waitForTab(cdp, 10_000);
        return browserName(cdp);
      });
      const state: DesktopState = {
        display,
        width: size.width,
        height: size.height,
        vncPort: desktopPorts.vnc,
        devtoolsPort: desktopPorts.devtools,
        devtoolsPath,
        browser,
        startedAt: new Date().toISOString(),
      };
      await saveState(runtime, sandboxId, state);
      known.set(sandboxId, state);
      return infoOf(state);
    } catch (error) {
      await stopProcesses(runtime, sandboxId).catch(() => {});
      throw error;
    }
  }

  return {
    async start(sandboxId, resolution) {
      checkResolution(resolution);
      return serial(sandboxId, () => start(sandboxId, resolution));
    },

    async stop(sandboxId) {
      return serial(sandboxId, async () => {
        known.delete(sandboxId);
        await stopProcesses(runtime, sandboxId);
      });
    },

    forget(sandboxId) {
      known.delete(sandboxId);
    },

    async status(sandboxId) {
      const state = await read(sandboxId);
      return state && infoOf(state);
    },

    input(sandboxId, action) {
      return onDesktop(sandboxId, async (state): Promise<InputResult> => {
        const outside = positionOutsideScreen(state, positionsOf(action));
        if (outside) throw invalidRequest(outside.param, outside.message);
        if (action.action === 'cursor')
          return parseCursor(await runShellOk(runtime, sandboxId, cursorScript));
        if (action.action === 'open') {
          await withBrowser(runtime, sandboxId, state.devtoolsPath, (cdp) => openTabs(cdp, action.urls));
          return { done: 'open' };
        }
        const { script, timeoutSeconds } = inputScript(action);
        await runShellOk(runtime, sandboxId, script, timeoutSeconds);
        return { done: action.action };
      });
    },

    screenshot(sandboxId, region) {
      return onDesktop(sandboxId, (state) => {
        if (region !== undefined) {
          const checked = checkRegion(state, region);
          if (!checked.ok) throw invalidRequest('region', checked.message);
        }
        return takeScreenshot(runtime, sandboxId, state, region);
      });
    },

    accessibilityTree(sandboxId, options) {
      return onDesktop(sandboxId, (state) =>
        readAccessibilityTree(runtime, sandboxId, state.devtoolsPath, options),
      );
    },

    accessibilityAct(sandboxId, request) {
      return onDesktop(sandboxId, (state) =>
        actOnAccessibilityNode(runtime, sandboxId, state.devtoolsPath, request),
      );
    },

    connectVnc(sandboxId) {
      return onDesktop(sandboxId, (state) => runtime.connect(sandboxId, state.vncPort));
    },
  };
}
