// Dotted paths into a run's result (spec 002: `<cli> result <name> [path]`, and the left side of a
// `--check`): `metrics.accuracy`, `layers.0.name`. A segment is letters, digits, `_` and `-`; a
// segment of digits also indexes an array. Read, never evaluated.

export type Path = readonly string[];

const segment = /^[A-Za-z0-9_-]+$/;

/** The path's segments, or the reason it is not one (for the message naming the flag). */
export function parsePath(text: string): { ok: true; path: Path } | { ok: false; reason: string } {
  if (text === '') return { ok: false, reason: 'the path is empty' };
  const parts = text.split('.');
  const bad = parts.find((part) => !segment.test(part));
  if (bad !== undefined)
    return {
      ok: false,
      reason:
        bad === ''
          ? `'${text}' has an empty segment (write names between the dots, as in metrics.accuracy)`
          : `'${bad}' is not a segment of a path (letters, digits, _ and -, joined by dots)`,
    };
  return { ok: true, path: parts };
}

/** The value at the path, or `found: false` when some segment is not there. */
export function valueAt(root: unknown, path: Path): { found: true; value: unknown } | { found: false } {
  let current: unknown = root;
  for (const part of path) {
    if (Array.isArray(current) && /^\d+$/.test(part)) {
      const index = Number(part);
      if (index >= current.length) return { found: false };
      current = current[index];
    } else if (typeof current === 'object' && current !== null && !Array.isArray(current)) {
      if (!Object.hasOwn(current, part)) return { found: false };
      current = (current as Record<string, unknown>)[part];
    } else return { found: false };
  }
  return { found: true, value: current };
}
