import { describe, expect, it } from 'vitest';
import { routeAccess, type SandboxRouteName, sandboxRoutes } from '../../../domain/sandboxes/routes.ts';

// Every call of the client package (spec, `Sandbox` methods, Lookup, Desktop methods, screen).
const clientMethods = [
  'sandboxes.create',
  'sandboxes.get',
  'sandboxes.list',
  'Sandbox.exec',
  'Sandbox.files.read',
  'Sandbox.files.write',
  'Sandbox.createToken',
  'Sandbox.update',
  'Sandbox.stop',
  'Sandbox.resume',
  'Sandbox.restart',
  'Sandbox.fork',
  'Sandbox.snapshot',
  'Sandbox.destroy',
  'Sandbox.refresh',
  'Desktop.status',
  'Desktop.screenshot',
  'Desktop.start',
  'Desktop.stop',
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
  'Desktop.accessibility.tree',
  'Desktop.accessibility.act',
  'mountScreen',
  'SandboxScreen',
];

describe('routes', () => {
  it('serve each client call by exactly one route', () => {
    const served = Object.values(sandboxRoutes).flatMap((route) => route.clientMethods);
    expect([...served].sort()).toEqual([...clientMethods].sort());
  });

  it('have distinct methods and paths', () => {
    const keys = Object.values(sandboxRoutes).map((route) => `${route.method} ${route.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  // The spec's "Endpoints" table: required token ability.
  it.each([
    ['sandbox.tokens.create', 'POST', '/sandboxes/:id/tokens', 'api_key_only'],
    ['desktop.status', 'GET', '/sandboxes/:id/desktop', 'view'],
    ['desktop.action', 'POST', '/sandboxes/:id/desktop', 'control'],
    ['desktop.input', 'POST', '/sandboxes/:id/desktop/input', 'control'],
    ['desktop.screenshot', 'GET', '/sandboxes/:id/desktop/screenshot', 'view'],
    ['desktop.accessibility.tree', 'GET', '/sandboxes/:id/desktop/accessibility', 'control'],
    ['desktop.accessibility.act', 'POST', '/sandboxes/:id/desktop/accessibility', 'control'],
    ['screen', 'GET', '/sandboxes/:id/screen', 'view'],
  ] as [SandboxRouteName, string, string, string][])('%s is %s %s, %s', (name, method, path, access) => {
    expect(sandboxRoutes[name]).toMatchObject({ method, path });
    expect(routeAccess(name)).toBe(access);
  });

  it('keep every route outside /desktop and /screen to API keys', () => {
    for (const [name, route] of Object.entries(sandboxRoutes)) {
      const desktopOrScreen = /\/(desktop|screen)(\/|$)/.test(route.path);
      expect([name, route.access === 'api_key_only']).toEqual([name, !desktopOrScreen]);
    }
  });
});
