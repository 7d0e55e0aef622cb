import { defaultBaseUrl, screenUrl } from '../addresses.js';

// The embeddable live screen (spec 002, "Embeddable screen"): noVNC's RFB client on the screen
// route's WebSocket, scaled to fit its element. In `view` mode noVNC sends no input at all (and the
// API drops the input of a `view` token whatever the mode). noVNC is loaded when a screen is
// mounted, not when this module is imported, so a page rendered on a server can import it.

export type ScreenMode = 'view' | 'control';

export interface ScreenOptions {
  /** A sandbox token with `view` or `control` (`sandbox.createToken`). */
  token: string;
  /** The sandbox's id. */
  sandbox: string;
  /** `control` also sends keyboard and mouse, and needs a `control` token. */
  mode?: ScreenMode;
  /** The API's address. */
  baseUrl?: string;
  /** A CSS colour around the screen where its aspect ratio leaves space. */
  background?: string;
  onConnect?: () => void;
  /** Called once: the token expired, the desktop stopped, or `disconnect` was called. */
  onDisconnect?: (event: ScreenDisconnect) => void;
}

/**
 * How the screen ended. `code` and `reason` are the WebSocket's close code and reason when the
 * connection was opened: the API says why in `reason` (`token expired`, `token revoked`,
 * `removed from the org`, `desktop stopped`, …); they are absent when noVNC could not load.
 */
export interface ScreenDisconnect {
  clean: boolean;
  code?: number;
  reason?: string;
}

export interface MountedScreen {
  /** Switches between `view` and `control` on the same connection. */
  setMode(mode: ScreenMode): void;
  disconnect(): void;
}

/** The part of noVNC's RFB class the screen uses. */
interface Rfb extends EventTarget {
  viewOnly: boolean;
  scaleViewport: boolean;
  background: string;
  disconnect(): void;
}

type RfbClass = new (target: Element, socket: WebSocket, options?: { shared?: boolean }) => Rfb;

export function mountScreen(element: Element, options: ScreenOptions): MountedScreen {
  const checked = checkScreenOptions(element, options);
  let mode = checked.mode;
  let rfb: Rfb | undefined;
  let ended = false;
  let closed: { code: number; reason: string } | undefined;
  const end = (clean: boolean) => {
    if (ended) return;
    ended = true;
    options.onDisconnect?.({ clean, ...closed });
  };
  loadRfb().then(
    (RFB) => {
      if (ended) return;
      // noVNC's disconnect event carries only `clean`: the screen opens the WebSocket itself to
      // hear the close's code and reason, its listener added before noVNC's so it runs first.
      const socket = new WebSocket(screenUrl(checked.baseUrl, options.sandbox, options.token));
      socket.addEventListener('close', ({ code, reason }) => {
        closed = { code, reason };
      });
      rfb = new RFB(element, socket, { shared: true });
      rfb.viewOnly = mode === 'view';
      rfb.scaleViewport = true;
      if (options.background !== undefined) rfb.background = options.background;
      rfb.addEventListener('connect', () => options.onConnect?.());
      rfb.addEventListener('disconnect', (event) =>
        end((event as CustomEvent<{ clean: boolean }>).detail.clean),
      );
    },
    (error: unknown) => {
      console.error(
        '@orrery/sandbox/screen: could not load @novnc/novnc; install it beside this package',
        error,
      );
      end(false);
    },
  );
  return {
    setMode(next) {
      mode = checkMode(next);
      if (rfb) rfb.viewOnly = mode === 'view';
    },
    disconnect() {
      if (rfb && !ended) rfb.disconnect();
      else end(true);
    },
  };
}

let rfbClass: Promise<RfbClass> | undefined;
function loadRfb(): Promise<RfbClass> {
  rfbClass ??= import('@novnc/novnc').then((module) => module.default as unknown as RfbClass);
  return rfbClass;
}

function checkScreenOptions(element: Element, options: ScreenOptions) {
  if (!element || typeof element.appendChild !== 'function') {
    throw new TypeError('mountScreen needs an element to draw the screen in');
  }
  if (typeof options?.token !== 'string' || options.token === '') {
    throw new TypeError('mountScreen needs options.token: a sandbox token from sandbox.createToken()');
  }
  if (typeof options.sandbox !== 'string' || options.sandbox === '') {
    throw new TypeError("mountScreen needs options.sandbox: the sandbox's id");
  }
  return { mode: checkMode(options.mode ?? 'view'), baseUrl: options.baseUrl ?? defaultBaseUrl };
}

function checkMode(mode: unknown): ScreenMode {
  if (mode === 'view' || mode === 'control') return mode;
  throw new TypeError(`mode must be 'view' or 'control', not ${JSON.stringify(mode)}`);
}
