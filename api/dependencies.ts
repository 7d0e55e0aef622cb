import type { onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { DependencyWatch } from '../platform/dependency-watch.ts';
import { type Dependency, DependencyAway, Draining } from './errors.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * An onRequest hook: 503 `DependencyAway` at once while one of `needs` was last seen
     * unreachable, rather than after the request has waited for it to fail.
     */
    refuseWhileAway(needs: readonly Dependency[]): onRequestHookHandler;
  }
}

export interface DependenciesOptions {
  watch: DependencyWatch<Dependency>;
}

/**
 * Shared refusals, registered once at the root, each written by the route's own surface (its
 * error handler turns an `Unavailable` into its 503): a dependency away, and a process draining,
 * whose requests on kept-alive connections get a 503 with Retry-After and `Connection: close`
 * (Fastify's own `return503OnClosing` answer has neither, nor the surface's shape).
 */
export const dependenciesPlugin = fp<DependenciesOptions>(
  async (app, { watch }) => {
    app.decorate('refuseWhileAway', (needs: readonly Dependency[]): onRequestHookHandler => {
      return async () => {
        const away = watch.away(needs);
        if (away) throw new DependencyAway(away);
      };
    });
    let draining = false;
    app.addHook('preClose', async () => {
      draining = true;
    });
    app.addHook('onRequest', async () => {
      if (draining) throw new Draining();
    });
    // A kept-alive connection would hold the drain open until it idled out: each answer given
    // while draining closes its connection, so the client's next request goes elsewhere.
    app.addHook('onSend', async (_request, reply) => {
      if (draining) reply.header('connection', 'close');
    });
    app.addHook('onClose', async () => watch.stop());
  },
  { name: 'orrery-dependencies' },
);
