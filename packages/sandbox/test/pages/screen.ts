import { type MountedScreen, mountScreen, type ScreenMode } from '@orrery/sandbox/screen';
import { exposeCanvas } from './page-api.js';
import type { ScreenPageApi } from './page-window.js';

// A page that mounts the live screen as a user's page would, from the query string; the test
// reads what happened from `window.screenEvents` and drives `window.mounted`.

const query = new URLSearchParams(location.search);
const screenEvents: string[] = [];
let closedWith: { code?: number; reason?: string } | undefined;
const element = document.getElementById('screen') as HTMLElement;
const mounted = mountScreen(element, {
  token: query.get('token') ?? '',
  sandbox: query.get('sandbox') ?? '',
  baseUrl: query.get('baseUrl') ?? '',
  mode: (query.get('mode') ?? 'view') as ScreenMode,
  background: 'rgb(10, 20, 30)',
  onConnect: () => screenEvents.push('connect'),
  onDisconnect: ({ clean, code, reason }) => {
    screenEvents.push(`disconnect clean=${clean}`);
    closedWith = { code, reason };
  },
});
Object.assign(window, {
  ...exposeCanvas(screenEvents),
  mounted,
  closedWith: () => closedWith,
} satisfies ScreenPageApi & {
  mounted: MountedScreen;
  closedWith: () => { code?: number; reason?: string } | undefined;
});
