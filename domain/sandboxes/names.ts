import type { Checked } from './checked.ts';

// Sandbox names and ids (spec, `sandboxes.create` options: `name`; "Limits": sandbox name).
//
// A name is a DNS label: lowercase letters, digits and dashes, 1 to 63 characters, starting and
// ending with a letter or digit, so it can become a host name later. Ids start with `sbx_`, and
// a name can never hold `_`, so `:id` in a route is read as an id or a name without ambiguity.
// Names are unique among an org's sandboxes that are not deleted: destroying one frees its name.

export const nameMaxLength = 63;
const nameCharacters = /^[a-z0-9-]*$/;

export function checkSandboxName(name: string): Checked<string> {
  if (name.length === 0 || name.length > nameMaxLength) {
    return { ok: false, message: `name must be 1 to ${nameMaxLength} characters; it has ${name.length}` };
  }
  if (!nameCharacters.test(name)) {
    return { ok: false, message: 'name may hold only lowercase letters, digits and dashes' };
  }
  if (name.startsWith('-') || name.endsWith('-')) {
    return { ok: false, message: 'name must start and end with a letter or a digit, not a dash' };
  }
  return { ok: true, value: name };
}

/** Fills a buffer of `count` random bytes, e.g. `crypto.randomBytes`. */
export type RandomBytes = (count: number) => Uint8Array;

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** `sb-` followed by six hex digits. */
export function defaultName(randomBytes: RandomBytes): string {
  return `sb-${hex(randomBytes(3))}`;
}

/**
 * A default name not yet taken in the org. 16.7 million names make a collision rare, so a few
 * attempts suffice; running out means the predicate is wrong, which is a bug, not a refusal.
 */
export async function pickDefaultName(
  randomBytes: RandomBytes,
  taken: (name: string) => boolean | Promise<boolean>,
  attempts = 8,
): Promise<string> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const name = defaultName(randomBytes);
    if (!(await taken(name))) return name;
  }
  throw new Error(`no free default sandbox name after ${attempts} attempts`);
}

export const sandboxIdPrefix = 'sbx_';

/** `sbx_` followed by 24 hex digits (96 random bits). */
export function newSandboxId(randomBytes: RandomBytes): string {
  return `${sandboxIdPrefix}${hex(randomBytes(12))}`;
}

/** How to look up the `:id` of a route. */
export function identifierKind(idOrName: string): 'id' | 'name' {
  return idOrName.startsWith(sandboxIdPrefix) ? 'id' : 'name';
}
