import { z } from 'zod';
import type { Checked } from '../sandboxes/checked.ts';
import { checkedString } from '../sandboxes/fields.ts';
import { checkSandboxName } from '../sandboxes/names.ts';
import { execLimits } from '../sandboxes/requests.ts';
import { textWithoutNul } from '../text.ts';

// Bodies of the template routes (issue 48), in wire names, parsed with the sandbox surface's
// words (domain/sandboxes/parse.ts): a refusal is 422 `invalid_request` naming the field
// (`recipe.packages[2]`, `name`). Unknown fields are refused, as the sandbox routes refuse them.

export const recipeLimits = { packages: 100, commands: 100 } as const;

/**
 * A Debian package name as Debian's policy (5.6.1) has it: lower-case letters, digits, `+`, `-` and
 * `.`, at least two characters, starting with a letter or digit. Nothing else reaches apt: no
 * option (`-o…`), no version or release (`=`, `/`), no space.
 */
export function checkPackageName(name: string): Checked<string> {
  if (!/^[a-z0-9][a-z0-9+.-]+$/.test(name) || name.length > 128)
    return {
      ok: false,
      message:
        'send a Debian package name: 2 to 128 lower-case letters, digits, `+`, `-` and `.`, starting with a letter or digit',
    };
  return { ok: true, value: name };
}

export const templateName = checkedString(checkSandboxName);

const command = textWithoutNul('send a shell command')
  .min(1, 'send a shell command')
  .max(execLimits.commandLength, 'send a command of at most 65,536 characters');

export const recipeBody = z
  .strictObject({
    packages: z
      .array(checkedString(checkPackageName))
      .max(recipeLimits.packages, `send at most ${recipeLimits.packages} packages`)
      .default([]),
    run: z
      .array(command)
      .max(recipeLimits.commands, `send at most ${recipeLimits.commands} commands`)
      .default([]),
  })
  .refine((recipe) => recipe.packages.length + recipe.run.length > 0, {
    message: 'send at least one package or command',
  });

/** `POST /api/templates`: a template built from a recipe, in the background. */
export const createTemplateBody = z.strictObject({
  name: templateName,
  recipe: recipeBody,
});
export type CreateTemplateBody = z.output<typeof createTemplateBody>;

/** `POST /api/sandboxes/:id/snapshot`: a template of the sandbox's files as they are now. */
export const snapshotBody = z.strictObject({ name: templateName });
export type SnapshotBody = z.output<typeof snapshotBody>;
