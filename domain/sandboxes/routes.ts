// The sandbox routes under `{base_url}/api` (spec, "Endpoints"), one per client package call, and
// who may call them: `api_key_only` routes refuse a sandbox token with 401 (spec,
// "Authentication" 2 and 7); the others need a token with the named ability.
//
// Routes the spec does not show follow its shapes: JSON bodies in snake_case, `:id` an id or a
// name, lifecycle actions as `POST …/<verb>`. Files travel as raw bytes (up to 64 MB each, too big
// for base64 in JSON): `GET …/files?path=` answers `application/octet-stream`; `PUT …/files?path=`
// takes the bytes and answers `{ path, size_bytes }`. `Sandbox.refresh()` re-reads through
// `sandboxes.get`, and `Desktop.start()`/`stop()` share one route told apart by `action`.

export type RouteAccess = 'view' | 'control' | 'api_key_only';

export interface SandboxRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  access: RouteAccess;
  /**
   * A dashboard session may call it too (spec, "Authentication" 2: minting a token; the lists; and
   * an update, where a person changes a sandbox's network policy on its page; the desktop's start
   * and stop, pressed on that page).
   */
  dashboardSession?: true;
  /** The client package's calls that use this route. */
  clientMethods: readonly string[];
}

export const sandboxRoutes = {
  'sandboxes.create': {
    method: 'POST',
    path: '/sandboxes',
    access: 'api_key_only',
    clientMethods: ['sandboxes.create'],
  },
  'sandboxes.list': {
    method: 'GET',
    path: '/sandboxes',
    access: 'api_key_only',
    dashboardSession: true,
    clientMethods: ['sandboxes.list'],
  },
  'sandboxes.get': {
    method: 'GET',
    path: '/sandboxes/:id',
    access: 'api_key_only',
    dashboardSession: true,
    clientMethods: ['sandboxes.get', 'Sandbox.refresh'],
  },
  'sandbox.update': {
    method: 'PATCH',
    path: '/sandboxes/:id',
    access: 'api_key_only',
    dashboardSession: true,
    clientMethods: ['Sandbox.update'],
  },
  'sandbox.destroy': {
    method: 'DELETE',
    path: '/sandboxes/:id',
    access: 'api_key_only',
    clientMethods: ['Sandbox.destroy'],
  },
  'sandbox.stop': {
    method: 'POST',
    path: '/sandboxes/:id/stop',
    access: 'api_key_only',
    clientMethods: ['Sandbox.stop'],
  },
  'sandbox.resume': {
    method: 'POST',
    path: '/sandboxes/:id/resume',
    access: 'api_key_only',
    clientMethods: ['Sandbox.resume'],
  },
  'sandbox.restart': {
    method: 'POST',
    path: '/sandboxes/:id/restart',
    access: 'api_key_only',
    clientMethods: ['Sandbox.restart'],
  },
  'sandbox.fork': {
    method: 'POST',
    path: '/sandboxes/:id/fork',
    access: 'api_key_only',
    clientMethods: ['Sandbox.fork'],
  },
  /** A template of the sandbox's files (issue 48), answered once ready. */
  'sandbox.snapshot': {
    method: 'POST',
    path: '/sandboxes/:id/snapshot',
    access: 'api_key_only',
    clientMethods: ['Sandbox.snapshot'],
  },
  'sandbox.exec': {
    method: 'POST',
    path: '/sandboxes/:id/exec',
    access: 'api_key_only',
    clientMethods: ['Sandbox.exec'],
  },
  'sandbox.files.read': {
    method: 'GET',
    path: '/sandboxes/:id/files',
    access: 'api_key_only',
    clientMethods: ['Sandbox.files.read'],
  },
  'sandbox.files.write': {
    method: 'PUT',
    path: '/sandboxes/:id/files',
    access: 'api_key_only',
    clientMethods: ['Sandbox.files.write'],
  },
  'sandbox.tokens.create': {
    method: 'POST',
    path: '/sandboxes/:id/tokens',
    access: 'api_key_only',
    dashboardSession: true,
    clientMethods: ['Sandbox.createToken'],
  },
  'desktop.status': {
    method: 'GET',
    path: '/sandboxes/:id/desktop',
    access: 'view',
    clientMethods: ['Desktop.status'],
  },
  'desktop.action': {
    method: 'POST',
    path: '/sandboxes/:id/desktop',
    access: 'control',
    dashboardSession: true,
    clientMethods: ['Desktop.start', 'Desktop.stop'],
  },
  'desktop.input': {
    method: 'POST',
    path: '/sandboxes/:id/desktop/input',
    access: 'control',
    clientMethods: [
      'Desktop.click',
      'Desktop.move',
      'Desktop.mouseDown',
      'Desktop.mouseUp',
      'Desktop.drag',
      'Desktop.scroll',
      'Desktop.type',
      'Desktop.key',
      'Desktop.hold',
      'Desktop.cursor',
      'Desktop.open',
    ],
  },
  'desktop.screenshot': {
    method: 'GET',
    path: '/sandboxes/:id/desktop/screenshot',
    access: 'view',
    clientMethods: ['Desktop.screenshot'],
  },
  'desktop.accessibility.tree': {
    method: 'GET',
    path: '/sandboxes/:id/desktop/accessibility',
    access: 'control',
    clientMethods: ['Desktop.accessibility.tree'],
  },
  'desktop.accessibility.act': {
    method: 'POST',
    path: '/sandboxes/:id/desktop/accessibility',
    access: 'control',
    clientMethods: ['Desktop.accessibility.act'],
  },
  /** WebSocket carrying VNC; the token comes as `?token=`. A `view` token's input is ignored. */
  screen: {
    method: 'GET',
    path: '/sandboxes/:id/screen',
    access: 'view',
    clientMethods: ['mountScreen', 'SandboxScreen'],
  },
} as const satisfies Record<string, SandboxRoute>;

export type SandboxRouteName = keyof typeof sandboxRoutes;

export function routeAccess(route: SandboxRouteName): RouteAccess {
  return sandboxRoutes[route].access;
}

/** Whether a dashboard session may call the route besides an API key. */
export function sessionMayCall(route: SandboxRouteName): boolean {
  const described: SandboxRoute = sandboxRoutes[route];
  return described.dashboardSession === true;
}
