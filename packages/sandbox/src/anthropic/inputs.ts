// Checks on the fields of a model's member input. The SDK's input types name the fields and say what
// the model sends; these check that it did, and refuse with the field's name when it did not.

import { ComputerUseError } from '../computer-use/errors.js';
import { desktopKeys, desktopModifiers } from '../computer-use/keys.js';
import type { Keys, ScrollDirection } from '../desktop-types.js';

const DIRECTIONS: readonly ScrollDirection[] = ['up', 'down', 'left', 'right'];

export function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new ComputerUseError(`${field} must be a non-empty string; got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A number of seconds from 0, and up to `max` when given (the desktop checks its own limits). */
export function seconds(value: unknown, field: string, max?: number): number {
  const valid = typeof value === 'number' && Number.isFinite(value) && value >= 0;
  if (!valid || (max !== undefined && value > max)) {
    const range = max === undefined ? 'a number of seconds from 0' : `0 to ${max} seconds`;
    throw new ComputerUseError(`${field} must be ${range}; got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A whole number of at least 1. */
export function count(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new ComputerUseError(`${field} must be a whole number from 1; got ${JSON.stringify(value)}`);
  }
  return value;
}

export function direction(value: unknown, field: string): ScrollDirection {
  const found = DIRECTIONS.find((d) => d === value);
  if (found === undefined) {
    throw new ComputerUseError(
      `${field} must be one of ${DIRECTIONS.join(', ')}; got ${JSON.stringify(value)}`,
    );
  }
  return found;
}

/** `key` and `hold_key`'s `text`: keys as `desktopKeys` reads them. */
export function keys(value: unknown, field: string): Keys {
  return desktopKeys(text(value, field), field);
}

/** The optional `text` of clicks, drags and scrolls: keys held during the action (`ctrl+shift`). */
export function heldModifiers(value: unknown, field: string): { modifiers?: string } {
  if (value === undefined || value === null || value === '') return {};
  if (typeof value !== 'string') {
    throw new ComputerUseError(
      `${field} must be held keys such as 'ctrl+shift'; got ${JSON.stringify(value)}`,
    );
  }
  const modifiers = desktopModifiers(value.split('+'), field);
  return modifiers === undefined ? {} : { modifiers };
}

/** `value` when the model sent it (not absent, not null). */
export function given<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}
