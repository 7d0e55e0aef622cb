// The argument and answer shapes of spec 002's "Desktop methods of the client package" table, in
// one place: `Desktop` implements `DesktopActions`, and the computer-use adapters drive any object
// that does (a `Desktop` from `Client` or from `Client.fromToken`). Limits are checked by `Desktop`
// before a request is sent.

export type Ability = 'view' | 'control';

/** A screen position in pixels from the top left. */
export interface Point {
  x: number;
  y: number;
}

/** `[x0, y0, x1, y1]` corners in screen pixels. */
export type Region = readonly [number, number, number, number];

/** Any of `shift`, `ctrl`, `alt`, `super` joined by `+`, held during the action. */
export type Modifiers = string;

/** A key name (`Return`, `Escape`, `a`) or a combination joined by `+`. */
export type KeyName = string;

/** One key or combination, or up to 50 pressed in turn. */
export type Keys = KeyName | readonly KeyName[];

export type MouseButton = 'left' | 'middle' | 'right';
export type ScrollDirection = 'up' | 'down' | 'left' | 'right';

export type DesktopStatus =
  | { running: false }
  | {
      running: true;
      size: string;
      display: string;
      vnc_port: number;
      devtools: string;
      browser: string;
    };

export interface Screenshot {
  /** The PNG file. */
  bytes: Uint8Array;
  width: number;
  height: number;
}

export interface ClickOptions {
  x?: number;
  y?: number;
  button?: MouseButton;
  count?: 1 | 2 | 3;
  modifiers?: Modifiers;
}

export interface DragOptions {
  from: Point;
  to: Point;
  modifiers?: Modifiers;
}

export interface ScrollOptions {
  direction: ScrollDirection;
  amount?: number;
  x?: number;
  y?: number;
  modifiers?: Modifiers;
}

export interface AccessibilityTreeOptions {
  app?: string;
  depth?: number;
  includeHidden?: boolean;
}

export interface AccessibilityAction {
  ref: string;
  action: string;
  text?: string;
}

/** Every desktop method of the spec's table. */
export interface DesktopActions {
  status(): Promise<DesktopStatus>;
  screenshot(options?: { region?: Region }): Promise<Screenshot>;
  start(options?: { resolution?: string }): Promise<DesktopStatus>;
  stop(): Promise<DesktopStatus>;
  click(options?: ClickOptions): Promise<void>;
  move(point: Point): Promise<void>;
  mouseDown(): Promise<void>;
  mouseUp(): Promise<void>;
  drag(options: DragOptions): Promise<void>;
  scroll(options: ScrollOptions): Promise<void>;
  type(text: string): Promise<void>;
  key(keys: Keys, options?: { repeat?: number }): Promise<void>;
  hold(keys: Keys, seconds: number): Promise<void>;
  cursor(): Promise<Point>;
  open(urls: string | readonly string[]): Promise<void>;
  accessibility: {
    tree(options?: AccessibilityTreeOptions): Promise<unknown>;
    act(action: AccessibilityAction): Promise<unknown>;
  };
}
