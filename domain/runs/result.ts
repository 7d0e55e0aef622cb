import type { Checked } from '../sandboxes/checked.ts';

// A run's result (spec 002, "Run result and checks"): the JSON object the command wrote to the
// file named by `$ORRERY_RESULT_PATH` before exiting, for instance `{ "metrics": { "loss": 0.1 } }`.
// Kept with the run, so it is read back (`GET /api/runs/:name/result`, `<cli> result`) long after
// the sandbox is gone. What is not a JSON object within the limit is not kept, and the reason is.

/** Enough for metrics and a summary; artefacts belong in files, not here. */
export const resultLimitBytes = 256 * 1024;

/** Where the command finds it (`ORRERY_RESULT_PATH`), inside the run's sandbox. */
export const resultPath = '/root/.orrery/result.json';

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The result as compact JSON text, or why it is refused. */
export function checkResult(contents: Uint8Array): Checked<string> {
  if (contents.length > resultLimitBytes)
    return {
      ok: false,
      message: `The result file is ${contents.length} bytes, over the ${resultLimitBytes} bytes kept: write a smaller JSON object.`,
    };
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(contents));
  } catch {
    return { ok: false, message: 'The result file is not JSON (or not UTF-8): write one JSON object.' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { ok: false, message: 'The result file holds JSON that is not an object: write one JSON object.' };
  const text = JSON.stringify(parsed);
  // Postgres keeps no U+0000 in JSON (domain/text.ts).
  if (text.includes('\\u0000'))
    return { ok: false, message: 'The result holds the NUL character (U+0000): leave it out.' };
  return { ok: true, value: text };
}
