import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusMinimum, countByKind, loadCorpus } from '../../../bench/quality/corpus.ts';
import { rouge1 } from '../../../bench/quality/overlap.ts';

// The quality bench's corpus (issue 13) is data the endpoints must take: every line is parsed
// by the endpoints' own parser, so a change to the request schema that breaks it fails here, not
// in the middle of a 40-minute bench.

describe('the quality corpus', () => {
  it('holds at least 100 chats and 100 items of every kind, each a body the endpoint takes', () => {
    const counts = countByKind(loadCorpus());
    for (const [kind, count] of Object.entries(counts))
      expect(count, kind).toBeGreaterThanOrEqual(corpusMinimum);
  });

  it.each([
    [
      'a body the endpoint refuses',
      '{"id":"x-1","reference":"r","request":{"messages":[]}}',
      /titles\.jsonl:1: `messages` must not be empty/,
    ],
    [
      'an id used twice',
      '{"id":"x-1","reference":"r","request":{"messages":[{"role":"user","content":"a"}]}}\n'.repeat(2),
      /id x-1 is used twice/,
    ],
    [
      'a line without a reference',
      '{"id":"x-1","request":{"messages":[{"role":"user","content":"a"}]}}',
      /titles\.jsonl:1/,
    ],
  ])('names the file and line of %s', (_, text, message) => {
    const directory = mkdtempSync(join(tmpdir(), 'orrery-corpus-'));
    writeFileSync(join(directory, 'titles.jsonl'), text);
    expect(() => loadCorpus(directory)).toThrow(message);
  });
});

describe('ROUGE-1 overlap with the reference', () => {
  it('is 1 for the same words, 0 for none shared, and the F1 of the shared words otherwise', () => {
    expect(rouge1('Password reset help', 'password Reset help')).toBe(1);
    expect(rouge1('Greeting', 'Poem about the sea')).toBe(0);
    expect(rouge1('', 'Poem about the sea')).toBe(0);
    // 2 shared of 3 said and of 4 wanted: precision 2/3, recall 1/2, F1 4/7.
    expect(rouge1('Poem about cats', 'Poem about the sea')).toBeCloseTo(4 / 7, 10);
    // A repeated word counts once per time the reference has it.
    expect(rouge1('sea sea sea', 'the sea')).toBeCloseTo((2 * (1 / 3) * (1 / 2)) / (1 / 3 + 1 / 2), 10);
  });
});
