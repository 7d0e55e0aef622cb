/**
 * A decider's command as its caller writes it: without what the command shell adds (event id,
 * org, time), each kind of the union on its own (a plain `Omit` would merge the kinds).
 */
export type CommandBody<Command, Meta> = Command extends unknown ? Omit<Command, keyof Meta> : never;
