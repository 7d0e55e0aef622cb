import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import {
  type PreviewKind,
  type PreviewRequest,
  parseInferenceBody,
  previewKinds,
  previewRequest,
  type TitleRequest,
  titleRequest,
} from '../../domain/inference/requests.ts';

// The quality bench's corpus (issue 13): chats to title and list items to preview, written by
// us, one JSON object a line: `id`, `reference` (the line a person would write, for the reader
// of the bench's answers; never checked against) and `request`, a body the endpoint takes.
// Every request is parsed by the endpoint's own parser, so the corpus cannot drift from the API.

export const corpusDirectory = fileURLToPath(new URL('./corpus/', import.meta.url));

/** Each endpoint's bar: at least this many chats, and this many items of each kind. */
export const corpusMinimum = 100;

export interface CorpusEntry<R> {
  file: string;
  id: string;
  reference: string;
  request: R;
}

export interface Corpus {
  titles: CorpusEntry<TitleRequest>[];
  previews: CorpusEntry<PreviewRequest>[];
}

const line = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'an id is lower-case letters, digits and -'),
  reference: z.string().min(1),
  request: z.unknown(),
});

/** Reads every `*.jsonl` file: `titles*.jsonl` hold title bodies, `previews*.jsonl` preview bodies. */
export function loadCorpus(directory = corpusDirectory): Corpus {
  const corpus: Corpus = { titles: [], previews: [] };
  const ids = new Set<string>();
  for (const file of readdirSync(directory)
    .filter((name) => name.endsWith('.jsonl'))
    .sort()) {
    const endpoint = file.startsWith('titles')
      ? 'titles'
      : file.startsWith('previews')
        ? 'previews'
        : undefined;
    if (endpoint === undefined)
      throw new Error(`${file}: name a corpus file titles*.jsonl or previews*.jsonl`);
    const lines = readFileSync(join(directory, file), 'utf8').split('\n');
    lines.forEach((text, index) => {
      if (text.trim() === '') return;
      const where = `${file}:${index + 1}`;
      const entry = line.safeParse(JSON.parse(text));
      if (!entry.success) throw new Error(`${where}: ${entry.error.issues[0]?.message}`);
      const { id, reference, request } = entry.data;
      if (ids.has(id)) throw new Error(`${where}: id ${id} is used twice`);
      ids.add(id);
      if (endpoint === 'titles') {
        const parsed = parseInferenceBody(titleRequest, request);
        if (!parsed.ok) throw new Error(`${where}: ${parsed.message}`);
        corpus.titles.push({ file, id, reference, request: parsed.value });
      } else {
        const parsed = parseInferenceBody(previewRequest, request);
        if (!parsed.ok) throw new Error(`${where}: ${parsed.message}`);
        corpus.previews.push({ file, id, reference, request: parsed.value });
      }
    });
  }
  return corpus;
}

export function countByKind(corpus: Corpus): Record<'chat' | PreviewKind, number> {
  const counts = Object.fromEntries(['chat', ...previewKinds].map((k) => [k, 0])) as Record<
    'chat' | PreviewKind,
    number
  >;
  counts.chat = corpus.titles.length;
  for (const entry of corpus.previews) counts[entry.request.kind] += 1;
  return counts;
}

// `npx tsx bench/quality/corpus.ts` checks the corpus and prints its size per kind.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(countByKind(loadCorpus()));
}
