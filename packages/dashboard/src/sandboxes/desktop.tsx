import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, dataOf, inOrgHeader } from '../api/client.ts';
import type { Sandbox } from '../api/types.ts';
import { FormError, failureFrom } from '../components.tsx';
import { sandboxKey } from './queries.ts';

// Start desktop and Stop desktop on a sandbox's page (POST /api/sandboxes/:id/desktop with the
// session and its CSRF token, as a program's `desktop.start()` and `stop()` with a key). Start
// answers once the desktop's browser is ready, which takes seconds; the page says so meanwhile,
// shows the desktop's new status at once, and the API's message if it refuses.

type Action = 'start' | 'stop';

const pendingWords: Record<Action, string> = {
  start: 'Starting the desktop… (its browser takes a few seconds)',
  stop: 'Stopping the desktop…',
};

export function DesktopControls({ orgId, sandbox }: { orgId: string; sandbox: Sandbox }) {
  const client = useQueryClient();
  const act = useMutation({
    mutationFn: (action: Action) =>
      dataOf(
        api.POST('/api/sandboxes/{id}/desktop', {
          params: { path: { id: sandbox.id } },
          body: { action },
          ...inOrgHeader(orgId),
        }),
      ),
    onSuccess: ({ data }) => {
      client.setQueryData<Sandbox>(sandboxKey(orgId, sandbox.id), (before) =>
        before ? { ...before, desktop: data } : before,
      );
      void client.invalidateQueries({ queryKey: sandboxKey(orgId, sandbox.id) });
    },
  });
  const running = sandbox.desktop.running;
  const action: Action = running ? 'stop' : 'start';
  return (
    <div className="desktop-controls">
      <button
        type="button"
        className={running ? undefined : 'primary'}
        disabled={act.isPending}
        onClick={() => act.mutate(action)}
      >
        {running ? 'Stop desktop' : 'Start desktop'}
      </button>
      <p role="status" className="muted">
        {act.isPending
          ? pendingWords[act.variables]
          : act.isSuccess
            ? act.data.data.running
              ? 'The desktop is running.'
              : 'The desktop is stopped.'
            : ''}
      </p>
      <FormError message={act.isError ? failureFrom(act.error).message : undefined} />
    </div>
  );
}
