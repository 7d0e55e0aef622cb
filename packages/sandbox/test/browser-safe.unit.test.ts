import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

// The main entry runs in a browser (spec 002: `Client.fromToken` does): none of its modules
// imports Node's built-ins or uses `Buffer`. The entry's modules are the files directly in src/.

const src = new URL('../src/', import.meta.url);

it('the main entry imports nothing of Node and uses no Buffer', () => {
  const files = readdirSync(src).filter((name) => name.endsWith('.ts'));
  expect(files).toContain('index.ts');
  expect(files.length).toBeGreaterThan(8);
  const offending = files.filter((name) => {
    const text = readFileSync(new URL(name, src), 'utf8');
    return (
      /from '(node:|fs|path|crypto|buffer|url)/.test(text) ||
      /\bBuffer\b/.test(text) ||
      /\bprocess\./.test(text)
    );
  });
  expect(offending).toEqual([]);
});
