import { describe, expect, it } from 'vitest';
import { newId } from '../../../platform/ids.ts';

describe('ids', () => {
  it('are the prefix and 24 hex digits, and do not repeat across refills of the random pool', () => {
    const ids = Array.from({ length: 2_000 }, () => newId('req')); // the pool holds 256
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
