import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../platform/config.ts';

describe('ORRERY_STACK_DIR', () => {
  it('is under the working directory when relative, and where it says when absolute', () => {
    expect(parseConfig({}).stackDir).toBe(join(process.cwd(), '.stack'));
    expect(parseConfig({ ORRERY_STACK_DIR: 'elsewhere/stack' }).stackDir).toBe(
      join(process.cwd(), 'elsewhere/stack'),
    );
    expect(parseConfig({ ORRERY_STACK_DIR: '/var/tmp/orrery-stack' }).stackDir).toBe('/var/tmp/orrery-stack');
  });
});
