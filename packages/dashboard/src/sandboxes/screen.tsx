import { SandboxScreen } from '@orrery/sandbox/react';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, dataOf, inOrgHeader } from '../api/client.ts';
import type { Ability, Sandbox } from '../api/types.ts';
import { ErrorPanel, Loading } from '../components.tsx';
import { type ScreenEnd, screenEnd } from './screen-ends.ts';

// The live screen (`mountScreen` through `<SandboxScreen>`), with a token the session mints for
// this page's origin (spec 002, Authentication 2). Watching needs only `view`; taking control
// mints a `control` token, and going back to watching keeps it, switching on the same connection.
// When the screen ends, the page says why, from the close the API sent (screen-ends.ts).

const tokenSeconds = 900;

/** What became of each token's connection: a token replaced may still report its end later. */
type Connections = Record<string, 'connected' | ScreenEnd>;

export function LiveScreen({ orgId, sandbox }: { orgId: string; sandbox: Sandbox }) {
  const [mode, setMode] = useState<Ability>('view');
  const [connections, setConnections] = useState<Connections>({});
  const mint = useMutation({
    mutationFn: async (ability: Ability) =>
      (
        await dataOf(
          api.POST('/api/sandboxes/{id}/tokens', {
            params: { path: { id: sandbox.id } },
            body: { abilities: [ability], expires_in: tokenSeconds, origins: [window.location.origin] },
            ...inOrgHeader(orgId),
          }),
        )
      ).data,
  });
  const held = mint.data?.abilities ?? [];
  const token = mint.data?.token;
  const connection = token ? (connections[token] ?? 'connecting') : 'connecting';
  const ended = typeof connection === 'object' ? connection : undefined;
  const report = (of: string, what: 'connected' | ScreenEnd) =>
    setConnections((all) => ({ ...all, [of]: what }));
  // biome-ignore lint/correctness/useExhaustiveDependencies: mints once, when the screen is shown
  useEffect(() => mint.mutate('view'), [sandbox.id]);

  function choose(next: Ability) {
    setMode(next);
    if (next === 'control' && !held.includes('control')) mint.mutate('control');
  }

  return (
    <div className="screen-area">
      <fieldset className="segmented">
        <legend>Mode</legend>
        {(['view', 'control'] as const).map((option) => (
          <div className="checkbox" key={option}>
            <input
              type="radio"
              id={`mode-${option}`}
              name="mode"
              value={option}
              checked={mode === option}
              onChange={() => choose(option)}
            />
            <label htmlFor={`mode-${option}`}>
              {option === 'view'
                ? 'Watch (view only)'
                : 'Control (your keyboard and mouse reach the desktop)'}
            </label>
          </div>
        ))}
      </fieldset>
      <p role="status" className="screen-status">
        {mint.isPending
          ? 'Getting a token…'
          : connection === 'connected'
            ? `Connected, ${mode === 'view' ? 'watching' : 'in control'}.`
            : (ended?.words ?? 'Connecting…')}
      </p>
      {mint.isError && <ErrorPanel error={mint.error} title="No token for the screen" />}
      {ended?.reconnect && (
        <button type="button" onClick={() => mint.mutate(held.includes('control') ? 'control' : 'view')}>
          Connect again
        </button>
      )}
      {mint.isPending && <Loading what="a token" />}
      {token && !ended && (
        <SandboxScreen
          key={token}
          className="screen"
          token={token}
          sandbox={sandbox.id}
          baseUrl={window.location.origin}
          mode={held.includes('control') ? mode : 'view'}
          background="#1f2328"
          onConnect={() => report(token, 'connected')}
          onDisconnect={(disconnect) => report(token, screenEnd(disconnect))}
        />
      )}
    </div>
  );
}
