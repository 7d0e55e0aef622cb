// Colour (spec 002, "colour"): only when stdout is a terminal, FORCE_COLOR and NO_COLOR respected.
// One decision for the whole process, made from stdout, so a piped result never carries escapes
// and the tool's own words on stderr look the same as its results.

/** 0: none; 1: the 16 basic colours; 2: 256 colours; 3: 24-bit colour. */
export type ColourLevel = 0 | 1 | 2 | 3;

export interface ColourTarget {
  isTTY?: boolean;
  getColorDepth?: () => number;
}

function levelOfDepth(depth: number): ColourLevel {
  if (depth >= 24) return 3;
  if (depth >= 8) return 2;
  if (depth >= 4) return 1;
  return 0;
}

/**
 * FORCE_COLOR first (`0` or `false` turns colour off, `2` and `3` ask for more colours, any other
 * value for at least the basic ones, on a pipe too), as Node's own `util.styleText` and chalk
 * read it; then NO_COLOR (any value but empty, no-color.org); then whether stdout is a terminal,
 * and how many colours it has (TERM, COLORTERM: Node's `getColorDepth`).
 */
export function colourLevel(env: Record<string, string | undefined>, stdout: ColourTarget): ColourLevel {
  const detected = stdout.isTTY ? levelOfDepth(stdout.getColorDepth?.() ?? 4) : 0;
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    if (force === '0' || force === 'false') return 0;
    const asked: ColourLevel = force === '3' ? 3 : force === '2' ? 2 : 1;
    return asked > detected ? asked : detected;
  }
  if (env.NO_COLOR) return 0;
  return detected;
}

/** An SGR style: what opens it on 16-colour terminals, on 256-colour ones, and what closes it. */
interface Style {
  basic: string;
  extended: string;
  close: string;
}

const foreground = (basic: string, extended: string): Style => ({ basic, extended, close: '39' });

/**
 * The tool's styles by what they mean. The run colours are the spec's: green running, a dark red
 * failed, mustard for a spend ceiling reached, grey for a clean finish; on a 16-colour terminal
 * the nearest basic colour stands in.
 */
const styles = {
  running: foreground('32', '38;5;34'),
  failed: foreground('31', '38;5;124'),
  ceiling: foreground('33', '38;5;178'),
  finished: foreground('90', '38;5;245'),
  /** What the reader looks for first: a user code, an email, a balance. */
  strong: { basic: '1', extended: '1', close: '22' },
  /** Asides: ids, where a file is. */
  muted: { basic: '2', extended: '2', close: '22' },
} as const satisfies Record<string, Style>;

export type StyleName = keyof typeof styles;
export type Palette = Record<StyleName, (text: string) => string> & { readonly enabled: boolean };

export function createPalette(level: ColourLevel): Palette {
  const paint = (style: Style) => (text: string) => {
    if (level === 0 || text === '') return text;
    const open = level === 1 ? style.basic : style.extended;
    return `\u001b[${open}m${text}\u001b[${style.close}m`;
  };
  const entries = Object.entries(styles).map(([name, style]) => [name, paint(style)]);
  return {
    ...(Object.fromEntries(entries) as Record<StyleName, (text: string) => string>),
    enabled: level > 0,
  };
}

/**
 * A run's status in its colour (spec 002): running green, failed dark red, ceiling reached
 * mustard, a clean finish (succeeded) grey. Placed and stopped keep the terminal's own colour.
 */
const statusStyles: Record<string, StyleName | undefined> = {
  running: 'running',
  failed: 'failed',
  ceiling_reached: 'ceiling',
  succeeded: 'finished',
};

export function paintStatus(palette: Palette, status: string, text: string = status): string {
  const style = statusStyles[status];
  return style ? palette[style](text) : text;
}
