import { type MountedScreen, mountScreen, type ScreenMode } from '@orrery/sandbox/screen';
import { exposeCanvas } from './page-api.js';
import type { ScreenPageApi } from './page-window.js';

// A page that mounts the live screen as a user's page would, from the query string; the test
// reads what happened from `window.screenEvents` and drives `window.mounted`.

const query = new URLSearchParams(location.search);
const screenEvents: string[] = [];
const element = document.getElementById('screen') as HTMLElement;
const mounted = mountScreen(element, {
  token: query.get('token') ?? '',
  sandbox: query.get('sandbox') ?? '',
  baseUrl: query.get('baseUrl') ?? '',
  mode: (query.get('mode') ?? 'view') as ScreenMode,
  background: 'rgb(10, 20, 30)',
  onConnect: () => screenEvents.push('connect'),
  onDisconnect: ({ clean }) => screenEvents.push(`disconnect clean=${clean}`),
});
Object.assign(window, { ...exposeCanvas(screenEvents), mounted } satisfies ScreenPageApi & {
  mounted: MountedScreen;
});
