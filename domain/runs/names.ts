import type { RandomBytes } from '../sandboxes/names.ts';

// Run ids and names. A name follows the sandbox names' rules (a DNS label: lowercase letters,
// digits and dashes, up to 63 characters; domain/sandboxes/names.ts), so it can never hold `_`
// and `:name` in a route is read as an id (`run_…`) or a name without ambiguity. Names are not
// unique: a script may place `train` every night, and `train` then names the newest of them,
// while its id names each one for good.

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

export const runIdPrefix = 'run_';

/** `run_` followed by 24 hex digits (96 random bits); also the id of the run's sandbox on its host. */
export function newRunId(randomBytes: RandomBytes): string {
  return `${runIdPrefix}${hex(randomBytes(12))}`;
}

/** What `newRunId` makes. */
export const runIdPattern = /^run_[0-9a-f]{24}$/;

/** `run-` followed by six hex digits. */
export function defaultRunName(randomBytes: RandomBytes): string {
  return `run-${hex(randomBytes(3))}`;
}

export function runIdentifierKind(idOrName: string): 'id' | 'name' {
  return idOrName.startsWith(runIdPrefix) ? 'id' : 'name';
}
