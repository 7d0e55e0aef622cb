// Base64 without Node's Buffer, so the adapters also run in a browser.

/** The standard base64 text of `bytes` (no `data:` prefix). */
export function toBase64(bytes: Uint8Array): string {
  const native = bytes as Uint8Array & { toBase64?: () => string };
  if (typeof native.toBase64 === 'function') return native.toBase64();
  // btoa takes a binary string; built in chunks, as one String.fromCharCode call per byte array
  // overflows the argument limit on a full-screen PNG.
  let binary = '';
  for (let start = 0; start < bytes.length; start += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(start, start + CHUNK));
  }
  return btoa(binary);
}

const CHUNK = 0x8000;
