import { type CSSProperties, useEffect, useRef } from 'react';
import { type MountedScreen, mountScreen, type ScreenOptions } from '../screen/index.js';

export type { ScreenDisconnect } from '../screen/index.js';

// `<SandboxScreen>` (spec 002, "Embeddable screen"): `mountScreen` in a div. A new `token`,
// `sandbox`, `baseUrl` or `background` connects again; a new `mode` keeps the connection; new
// callbacks are used from the next event on, without reconnecting.

export interface SandboxScreenProps extends ScreenOptions {
  className?: string;
  style?: CSSProperties;
}

export function SandboxScreen(props: SandboxScreenProps) {
  const { token, sandbox, baseUrl, background, mode = 'view', className, style } = props;
  const element = useRef<HTMLDivElement>(null);
  const screen = useRef<MountedScreen | undefined>(undefined);
  const latest = useRef(props);
  latest.current = props;
  // The mode at connect time; later changes go through setMode below.
  const modeRef = useRef(mode);
  modeRef.current = mode;

  useEffect(() => {
    if (!element.current) return;
    const mounted = mountScreen(element.current, {
      token,
      sandbox,
      mode: modeRef.current,
      ...(baseUrl === undefined ? {} : { baseUrl }),
      ...(background === undefined ? {} : { background }),
      onConnect: () => latest.current.onConnect?.(),
      onDisconnect: (event) => latest.current.onDisconnect?.(event),
    });
    screen.current = mounted;
    return () => {
      screen.current = undefined;
      mounted.disconnect();
    };
  }, [token, sandbox, baseUrl, background]);

  useEffect(() => {
    screen.current?.setMode(mode);
  }, [mode]);

  return <div ref={element} className={className} style={style} />;
}
