import type { Palette } from './palette.ts';

// The two streams (spec 002, "streams"): results on stdout, so a script can pipe them; everything
// the tool says (progress, hints, errors) on stderr. `--json` prints the API's answer as it was
// sent, so fields the tool does not know are kept.

export interface TextSink {
  write(text: string): unknown;
}

export class Output {
  readonly palette: Palette;
  readonly #stdout: TextSink;
  readonly #stderr: TextSink;

  constructor(streams: { stdout: TextSink; stderr: TextSink }, palette: Palette) {
    this.#stdout = streams.stdout;
    this.#stderr = streams.stderr;
    this.palette = palette;
  }

  /** A line of result on stdout. */
  result(line: string): void {
    this.#stdout.write(`${line}\n`);
  }

  /** An answer's body as the API sent it, ended by one newline. */
  answer(text: string): void {
    this.#stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** A value of the tool's own as one line of JSON. */
  json(value: unknown): void {
    this.#stdout.write(`${JSON.stringify(value)}\n`);
  }

  /** A run's own output, unchanged, on the stream it was printed to. */
  relay(stream: 'stdout' | 'stderr', text: string): void {
    (stream === 'stdout' ? this.#stdout : this.#stderr).write(text);
  }

  /** A line the tool says, on stderr. */
  say(line: string): void {
    this.#stderr.write(`${line}\n`);
  }

  /** Why the tool stopped, on stderr. */
  error(message: string): void {
    this.#stderr.write(`${this.palette.failed('error:')} ${message}\n`);
  }
}
