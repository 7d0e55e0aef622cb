/**
 * An adapter refused a model's action before sending anything to the desktop: a field is missing or
 * out of range, a key or button has no desktop equivalent, or a screen cannot be shrunk. The message
 * names the field and what would be accepted; it is what the model reads (adapter A) or what
 * `computerCallOutput` throws (adapter B).
 */
export class ComputerUseError extends Error {
  override name = 'ComputerUseError';
}

/** `error` as an `Error`, keeping it when it is one. */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
