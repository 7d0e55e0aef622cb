# Binds characters to the X keyboard's spare keycodes before xdotool types them (input.ts, `type`).
#
# xdotool types a character missing from the keymap by binding it to a scratch keycode just
# before the key press and unbinding it after; Chromium reads the changed keymap asynchronously
# and drops or mistypes such characters (measured: about one in three non-ASCII characters
# lost), and every change of the keymap costs it time: a click sent right after a few of them
# was handled after the keys typed next. So characters are bound beforehand, all in one change,
# and left bound: typing the same characters again changes nothing. Both levels of a key get
# the same keysym, so an upper-case letter is not lowered.
#
# Usage: python3 -c "$(cat keymap.py)" codepoint... Keycodes it bound are listed in `state`
# (keycode codepoint per line) and reused first; Xvfb's keymap leaves 19 keycodes unbound.
# libX11 through ctypes: the desktop has both already, nothing more to install.

import ctypes
import os
import sys

state = '/run/orrery-desktop/keymap-bound'
x11 = ctypes.cdll.LoadLibrary('libX11.so.6')
x11.XOpenDisplay.restype = ctypes.c_void_p
x11.XGetKeyboardMapping.restype = ctypes.POINTER(ctypes.c_ulong)
display = ctypes.c_void_p(x11.XOpenDisplay(None))
if not display.value:
    sys.exit('cannot open the X display')


def keysym_of(codepoint):
    # X keysyms: Latin-1 characters are their own codes, the rest of Unicode is 0x01000000 + code.
    return codepoint if 0xA0 <= codepoint <= 0xFF else 0x01000000 | codepoint


bound = {}
if os.path.exists(state):
    for line in open(state).read().splitlines():
        keycode, codepoint = line.split()
        bound[int(keycode)] = int(codepoint)

wanted = [int(arg) for arg in sys.argv[1:]]
missing = [codepoint for codepoint in wanted if codepoint not in bound.values()]
if not missing:
    sys.exit(0)

low, high, per = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
x11.XDisplayKeycodes(display, ctypes.byref(low), ctypes.byref(high))
count = high.value - low.value + 1
mapping = x11.XGetKeyboardMapping(display, low.value, count, ctypes.byref(per))
width = per.value
keysyms = [mapping[i] for i in range(count * width)]
unbound = [
    low.value + i for i in range(count) if all(keysyms[i * width + j] == 0 for j in range(width))
]
# Ours and not wanted now first, then unbound ones; one unbound keycode stays xdotool's scratch key.
spare = [k for k, c in sorted(bound.items()) if c not in wanted] + [k for k in unbound if k not in bound][1:]
if len(missing) > len(spare):
    sys.exit('only %d spare keycodes for %d characters' % (len(spare), len(missing)))

for keycode, codepoint in zip(spare, missing):
    bound[keycode] = codepoint
    at = (keycode - low.value) * width
    keysyms[at : at + width] = [keysym_of(codepoint)] * 2 + [0] * (width - 2)

# One request over the changed range, so the browser reads the keymap once.
first, last = min(spare[: len(missing)]), max(spare[: len(missing)])
span = keysyms[(first - low.value) * width : (last - low.value + 1) * width]
x11.XChangeKeyboardMapping(display, first, width, (ctypes.c_ulong * len(span))(*span), last - first + 1)
x11.XSync(display, 0)
with open(state, 'w') as out:
    out.write(''.join('%d %d\n' % item for item in sorted(bound.items())))
