/** The key scopes the contract names (spec 000, 001, 002). */
export type Scope = 'inference:invoke' | 'traces:write' | 'sandboxes:write';
export const allScopes: readonly Scope[] = ['inference:invoke', 'traces:write', 'sandboxes:write'];
