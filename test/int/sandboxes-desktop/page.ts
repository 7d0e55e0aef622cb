import type { Rgb } from './png.ts';

// The page the desktop tests drive: a blue button that turns the page magenta, a yellow text
// field, a cyan text area, a button that removes itself, and a green band far down the page
// that scrolling brings into view. Colours no part of Chromium's own window uses, so a
// screenshot finds each by its colour alone; the title says how far the page is scrolled.

export const colours = {
  button: [0, 0, 255],
  clicked: [255, 0, 255],
  field: [255, 255, 0],
  notes: [0, 255, 255],
  band: [0, 200, 0],
} as const satisfies Record<string, Rgb>;

const css = (rgb: Rgb) => `rgb(${rgb.join(', ')})`;

export const testPage = `<!doctype html>
<html><head><title>Orrery test page</title>
<style>
  body { margin: 0; background: ${css([255, 255, 255])}; font-family: 'DejaVu Sans'; height: 3000px; }
  #press { position: absolute; left: 40px; top: 40px; width: 300px; height: 120px; border: none;
    background: ${css(colours.button)}; color: white; font-size: 24px; }
  #name { position: absolute; left: 40px; top: 200px; width: 400px; height: 40px; font-size: 20px;
    background: ${css(colours.field)}; }
  #notes { position: absolute; left: 480px; top: 200px; width: 400px; height: 150px;
    background: ${css(colours.notes)}; }
  #remove { position: absolute; left: 40px; top: 280px; width: 200px; height: 40px; }
  #band { position: absolute; left: 0; top: 1500px; width: 100%; height: 400px; background: ${css(colours.band)}; }
</style></head>
<body>
<button id="press" onclick="document.body.style.background = '${css(colours.clicked)}'; this.textContent = 'Clicked'">Press me</button>
<input id="name" aria-label="Name">
<textarea id="notes" aria-label="Notes"></textarea>
<button id="remove" onclick="this.remove()">Remove me</button>
<div id="band"></div>
<script>addEventListener('scroll', () => { document.title = 'scrolled ' + Math.round(scrollY); });</script>
</body></html>`;
