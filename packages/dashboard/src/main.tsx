import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { type ApiFailure, whenSessionLost, whenSessionReplaced } from './api/client.ts';
import { router } from './routes.tsx';
import { forgetSession, sessionKey } from './session.tsx';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 503 (a restart, a store away) or no answer passes; a 4xx does not.
      retry: (failures, error) => {
        const status = (error as Partial<ApiFailure>).status;
        return failures < 3 && (status === 0 || status === 503);
      },
    },
    mutations: { retry: false },
  },
});

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
