// noVNC ships no types, and DefinitelyTyped's describe 1.6's `lib/rfb`, a path 1.7 no longer has; the
// screen describes the part of RFB it uses itself (index.ts, `Rfb`).
declare module '@novnc/novnc' {
  const RFB: unknown;
  export default RFB;
}
