import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { whenSessionLost, whenSessionReplaced } from './api/client.ts';
import { queryClient } from './query-client.ts';
import { router } from './routes.tsx';
import { forgetSession, sessionKey } from './session.tsx';
import './styles.css';

// A 401 from any call: the session ended (logged out elsewhere, expired). Forgetting it makes
// <RequireSession> send the person to log in, and back here afterwards.
whenSessionLost(() => forgetSession(queryClient));
// A CSRF token refused: the cookie is a newer session's; read it (its person, its token) again.
whenSessionReplaced(() => queryClient.invalidateQueries({ queryKey: sessionKey }));

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
