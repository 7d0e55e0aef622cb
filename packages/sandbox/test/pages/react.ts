import { SandboxScreen, type SandboxScreenProps } from '@orrery/sandbox/react';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { exposeCanvas } from './page-api.js';

// A React page with `<SandboxScreen>`; the test renders it again with new props through
// `window.renderScreen` and reads what happened from `window.screenEvents`.

const screenEvents: string[] = [];
const root = createRoot(document.getElementById('root') as HTMLElement);
function renderScreen(props: Omit<SandboxScreenProps, 'onConnect' | 'onDisconnect' | 'style'>): void {
  root.render(
    createElement(SandboxScreen, {
      ...props,
      style: { width: '640px', height: '480px' },
      onConnect: () => screenEvents.push('connect'),
      onDisconnect: ({ clean }) => screenEvents.push(`disconnect clean=${clean}`),
    }),
  );
}
Object.assign(window, { ...exposeCanvas(screenEvents), renderScreen });
