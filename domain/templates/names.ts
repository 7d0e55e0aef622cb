import type { Checked } from '../sandboxes/checked.ts';
import { checkedString } from '../sandboxes/fields.ts';
import { checkSandboxName, type RandomBytes } from '../sandboxes/names.ts';

// Template ids and how a route's `:id` is read (issue 48). Names follow a sandbox's rule (a DNS
// label, domain/sandboxes/names.ts), and are unique among an org's templates that are not deleted.
// An id starts with `tpl_`, which no name can hold, so `:id` is an id or a name without ambiguity.

export const templateIdPrefix = 'tpl_';

/** `tpl_` followed by 24 hex digits (96 random bits). */
export function newTemplateId(randomBytes: RandomBytes): string {
  return `${templateIdPrefix}${Buffer.from(randomBytes(12)).toString('hex')}`;
}

export function templateIdentifierKind(idOrName: string): 'id' | 'name' {
  return idOrName.startsWith(templateIdPrefix) ? 'id' : 'name';
}

/** A template named where one is used (`template` of a sandbox or a run): its id or its name. */
export function checkTemplateReference(reference: string): Checked<string> {
  if (reference.startsWith(templateIdPrefix)) {
    return /^tpl_[0-9a-f]{24}$/.test(reference)
      ? { ok: true, value: reference }
      : { ok: false, message: 'send a template id (`tpl_` and 24 hex digits) or a template name' };
  }
  const name = checkSandboxName(reference);
  return name.ok ? name : { ok: false, message: `send a template id or name; a ${name.message}` };
}

export const templateReference = checkedString(checkTemplateReference);
