import { describe, expect, it } from 'vitest';
import { OrreryContainer } from '../src/index.js';

// The builder refuses what it cannot start, before any container is made.
describe('OrreryContainer', () => {
  it('refuses a key without scopes, or with a scope the contract does not name', () => {
    expect(() => new OrreryContainer().withApiKey('none', [])).toThrow('key "none" needs at least one scope');
    expect(() => new OrreryContainer().withApiKey('x', ['traces:read' as never])).toThrow(
      'unknown scope "traces:read"; use inference:invoke, traces:write, sandboxes:write',
    );
  });

  it('refuses credit that is not a whole number of cents', () => {
    expect(() => new OrreryContainer().withCredit(-1)).toThrow('credit is a whole number of cents ≥ 0');
    expect(() => new OrreryContainer().withCredit(1.5)).toThrow('credit is a whole number of cents ≥ 0');
  });
});
