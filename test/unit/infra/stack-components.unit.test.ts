import { describe, expect, it } from 'vitest';
import { stackComponents } from '../../../infra/stack/index.ts';
import { parseConfig } from '../../../platform/config.ts';

// The stack runs the default model exactly when the platform serves it, or a model the platform
// serves points at its address (platform/config.ts): then its watcher restarts it too.
describe('the stack’s parts', () => {
  const names = (environment: NodeJS.ProcessEnv) =>
    stackComponents(parseConfig(environment)).map((component) => component.name);

  it('end with the default model, on its port, when ORRERY_MODELS is unset', () => {
    expect(names({})).toEqual(['postgres', 'clickhouse', 'kafka', 'registry', 'model']);
    const model = stackComponents(parseConfig({ ORRERY_DEFAULT_MODEL_PORT: '18999' })).at(-1)!;
    expect(model.port).toBe(18999);
  });

  it('leave it out when ORRERY_MODELS replaces it or ORRERY_DEFAULT_MODEL is off', () => {
    expect(names({ ORRERY_MODELS: '[]' })).toEqual(['postgres', 'clickhouse', 'kafka', 'registry']);
    expect(names({ ORRERY_DEFAULT_MODEL: 'off' })).toEqual(['postgres', 'clickhouse', 'kafka', 'registry']);
  });

  it('keep it beside ORRERY_MODELS with ORRERY_DEFAULT_MODEL=on, or when a listed model points at it', () => {
    const elsewhere = '[{"name":"scribe","writes":["titles"],"baseUrl":"http://10.0.0.5:8000/v1"}]';
    const atDefault = '[{"name":"scribe","writes":["titles"],"baseUrl":"http://127.0.0.1:18082/v1"}]';
    expect(names({ ORRERY_MODELS: elsewhere, ORRERY_DEFAULT_MODEL: 'on' }).at(-1)).toBe('model');
    expect(names({ ORRERY_MODELS: atDefault }).at(-1)).toBe('model');
  });
});
