// What protobufjs reads a message as (camelCase fields, absent ones undefined), and the readers
// every stream's mapping uses on it: a text field absent reads as '', a number absent as 0.
export type Wire = Record<string, unknown>;
export const text = (value: unknown) => (typeof value === 'string' ? value : '');
export const whole = (value: unknown) => Number(value ?? 0);
/** A repeated message field; absent reads as empty. */
export const list = (value: unknown) => (Array.isArray(value) ? (value as Wire[]) : []);
