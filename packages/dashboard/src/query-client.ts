import { QueryClient } from '@tanstack/react-query';
import type { ApiFailure } from './api/client.ts';

// The dashboard's one cache of server state: the pages read it through their hooks, and the
// routes' loaders (routes.tsx) start a page's first reads into it as the navigation starts.
export const queryClient = new QueryClient({
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
