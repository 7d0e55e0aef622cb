import { z } from 'zod';
import { microdollarsPerCent } from '../billing/price.ts';
import { sandboxSizes } from '../sandboxes/events.ts';
import { checkedString, queryBoolean, queryIntIn, utf8Length } from '../sandboxes/fields.ts';
import { checkSandboxName } from '../sandboxes/names.ts';
import { defaultNetwork, networkPolicyBody } from '../sandboxes/network.ts';
import { templateReference } from '../templates/names.ts';
import { textWithoutNul } from '../text.ts';
import { runCommandLine } from './command-line.ts';
import { outputStreams } from './events.ts';

// Bodies and queries of the run routes (issue 16), in wire names (snake_case). Parsed with the
// sandbox surface's words (domain/sandboxes/parse.ts), so a 422 names its field as theirs do
// (`files[0].contents_base64`, `env.TOKEN`). Unknown fields are refused.

export const runLimits = {
  /** Working files, decoded, all together: a checkout of sources, not a data set. */
  filesTotalBytes: 10 * 1024 * 1024,
  files: 1000,
  pathLength: 1024,
  envVariables: 128,
  envValueBytes: 32 * 1024,
  /** The most a ceiling may be: 1,000 USD. */
  ceilingCents: 100_000,
} as const;

/** The body limit of `POST /api/runs`: the files in base64 (4/3 of their bytes) and room for the rest. */
export const placeRunBodyLimitBytes = Math.ceil((runLimits.filesTotalBytes * 4) / 3) + 1024 * 1024;

/** Where the working files are written, and where the command starts. */
export const workingDirectory = '/root/work';

/** Relative to the working directory, without `.` or `..` segments: the files stay under it. */
export function checkWorkingPath(path: string): { ok: true; value: string } | { ok: false; message: string } {
  const rule = `send a relative path of at most ${runLimits.pathLength} characters without \`.\` or \`..\` segments (files are written under ${workingDirectory})`;
  if (path.length === 0 || path.length > runLimits.pathLength || path.includes('\0'))
    return { ok: false, message: rule };
  const parts = path.split('/');
  if (path.startsWith('/') || parts.some((part) => part === '' || part === '.' || part === '..'))
    return { ok: false, message: rule };
  return { ok: true, value: path };
}

const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decoded bytes of a base64 text (checked by `base64` first). */
export function base64Bytes(text: string): number {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return (text.length / 4) * 3 - padding;
}

const workingFile = z.strictObject({
  path: checkedString(checkWorkingPath),
  contents_base64: z
    .string("send the file's bytes in base64")
    .regex(base64, "send the file's bytes in standard base64 (RFC 4648, with padding)"),
});

const files = z
  .array(workingFile)
  .max(runLimits.files, `send at most ${runLimits.files} files`)
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((file, index) => {
      if (seen.has(file.path))
        ctx.addIssue({
          code: 'custom',
          path: [index, 'path'],
          message: `send each path once; \`${file.path}\` repeats`,
        });
      seen.add(file.path);
    });
    const total = list.reduce((sum, file) => sum + base64Bytes(file.contents_base64), 0);
    if (total > runLimits.filesTotalBytes)
      ctx.addIssue({
        code: 'custom',
        message: `send at most ${runLimits.filesTotalBytes} bytes of files in all (10 MiB); these are ${total}`,
      });
  });

const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'names are letters, digits and `_`, not starting with a digit')
  .refine((name) => !name.startsWith('ORRERY_'), "names starting with `ORRERY_` are the platform's");

const env = z
  .record(
    envName,
    textWithoutNul('send a string').refine(
      (value) => utf8Length(value) <= runLimits.envValueBytes,
      `send at most ${runLimits.envValueBytes} bytes`,
    ),
  )
  .refine((variables) => Object.keys(variables).length <= runLimits.envVariables, {
    message: `send at most ${runLimits.envVariables} variables`,
  });

/**
 * The spend ceiling in cents, the unit billing uses, to a hundredth of a hundredth of a cent (one
 * micro-dollar), since a second of the smallest size costs 0.002 cents. Read as integer
 * micro-dollars once, here: money is never a float past this line.
 */
export const ceilingCents = z
  .number('send a number of cents, such as 50 or 0.5')
  .refine((cents) => cents > 0 && cents <= runLimits.ceilingCents, {
    message: `send more than 0 and at most ${runLimits.ceilingCents} cents`,
  })
  .refine((cents) => Math.abs(cents * microdollarsPerCent - Math.round(cents * microdollarsPerCent)) < 1e-6, {
    message: 'send at most four decimal places (a micro-dollar)',
  })
  .transform((cents) => Math.round(cents * microdollarsPerCent));

export const placeRunBody = z.strictObject({
  /** A shell command line, or an argument vector run with no shell (command-line.ts). */
  command: runCommandLine,
  size: z.enum(sandboxSizes).default('small'),
  files: files.default([]),
  env: env.default({}),
  ceiling_cents: ceilingCents,
  name: checkedString(checkSandboxName).optional(),
  /** What the run's sandbox may reach, as a sandbox's `network` (domain/sandboxes/network.ts). */
  network: networkPolicyBody.default(() => ({ ...defaultNetwork, allow: [], deny: [] })),
  /** A ready template's id or name (domain/templates/): the run's sandbox starts from its files. */
  template: templateReference.optional(),
});
export type PlaceRunBody = z.output<typeof placeRunBody>;

export const runListQuery = z.strictObject({
  status: z.enum(['active', 'all']).default('all'),
  limit: queryIntIn(1, 200).default(50),
});
export type RunListQuery = z.output<typeof runListQuery>;

export const outputQuery = z
  .strictObject({
    stream: z.enum(outputStreams).optional(),
    after_seq: queryIntIn(0, 1_000_000_000).default(0),
    follow: queryBoolean.default(false),
  })
  .refine((query) => query.after_seq === 0 || query.stream !== undefined, {
    path: ['after_seq'],
    message: 'sequence numbers count per stream: send `stream` with `after_seq`',
  });
export type OutputQuery = z.output<typeof outputQuery>;
