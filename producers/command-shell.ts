import type { EventProducer } from './producer.ts';

// The one command shell (DESIGN.md, "A command is checked, then decided, then recorded"): load,
// decide, publish, wait for the read model, answer the evolved state. Each stream brings its
// decider, its evolve and its topic; the shell is the same for all of them.

/** A stream's decider and how its events reach Kafka. */
export interface CommandStream<Command extends { type: string }, State, Event> {
  /** The read model's name in words, for ReadModelBehind. */
  readModel: string;
  decide(command: Command, state: State | undefined): Event[];
  evolve(state: State | undefined, event: Event): State | undefined;
  publish(producer: EventProducer, events: Event[]): Promise<void>;
  /** The id of the stream an event belongs to (the partition key). */
  streamOf(event: Event): string;
  /** The id of a loaded state's stream. */
  idOf(state: State): string;
}

/** A state and how many events made it (the read model's `version`). */
export interface Versioned<State> {
  state: State;
  version: number;
}

export interface RecordDeps {
  producer: EventProducer;
  /** The read model: true once it has applied `version` events to the stream. */
  readModel: { waitForVersion(streamId: string, version: number, timeoutMs: number): Promise<boolean> };
  /** How long to wait for it before ReadModelBehind (503). */
  timeoutMs: number;
}

/** The read model did not show a published change in time (are the consumers running?). */
export class ReadModelBehind extends Error {
  constructor(id: string, readModel: string) {
    super(`the ${readModel} read model did not show the change to ${id} in time`);
    this.name = 'ReadModelBehind';
  }
}

/**
 * Decides `command` on `loaded`, publishes what it decides, waits until the read model shows it,
 * and answers the evolved state. The caller holds whatever makes it the one writer of the stream.
 * Events on another stream than the loaded one (a fork, decided on its source) start that stream.
 */
export async function recordCommand<Command extends { type: string }, State, Event>(
  stream: CommandStream<Command, State, Event>,
  deps: RecordDeps,
  command: Command,
  loaded: Versioned<State> | undefined,
): Promise<Versioned<State>> {
  const events = stream.decide(command, loaded?.state);
  const [first] = events;
  if (first === undefined) {
    if (!loaded) throw new Error(`${command.type} decided nothing for an unknown ${stream.readModel}`);
    return loaded;
  }
  await stream.publish(deps.producer, events);
  const streamId = stream.streamOf(first);
  const base = loaded !== undefined && stream.idOf(loaded.state) === streamId ? loaded : undefined;
  const state = events.reduce(stream.evolve, base?.state);
  if (state === undefined) throw new Error(`${command.type} left no ${stream.readModel}`);
  const version = (base?.version ?? 0) + events.length;
  if (!(await deps.readModel.waitForVersion(streamId, version, deps.timeoutMs)))
    throw new ReadModelBehind(streamId, stream.readModel);
  return { state, version };
}
