/** The result of checking one value against a rule of the spec: the parsed value, or what to send instead. */
export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };
