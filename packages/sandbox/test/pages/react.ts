import { SandboxScreen, type SandboxScreenProps } from '@orrery/sandbox/react';
import { createElement, type ReactNode, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { exposeCanvas } from './page-api.js';

// A React page with `<SandboxScreen>`; the test renders it again with new props through
// `window.renderScreen` and reads what happened from `window.screenEvents`.

const screenEvents: string[] = [];
const root = createRoot(document.getElementById('root') as HTMLElement);

/** Calls `onCommit` after its children's effects ran: a child's effects run before its parent's. */
function Committed({ onCommit, children }: { onCommit: () => void; children?: ReactNode }) {
  useEffect(onCommit);
  return children;
}

/**
 * Renders the screen with new props and resolves once React has committed them: `root.render`
 * only schedules the render, so a click sent right after it could reach the old mode.
 */
function renderScreen(
  props: Omit<SandboxScreenProps, 'onConnect' | 'onDisconnect' | 'style'>,
): Promise<void> {
  return new Promise((onCommit) => {
    root.render(
      createElement(
        Committed,
        { onCommit },
        createElement(SandboxScreen, {
          ...props,
          style: { width: '640px', height: '480px' },
          onConnect: () => screenEvents.push('connect'),
          onDisconnect: ({ clean }) => screenEvents.push(`disconnect clean=${clean}`),
        }),
      ),
    );
  });
}
Object.assign(window, { ...exposeCanvas(screenEvents), renderScreen });
