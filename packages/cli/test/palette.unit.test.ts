import { describe, expect, it } from 'vitest';
import { colourLevel, createPalette, paintStatus } from '../src/palette.ts';

const terminal = (depth: number) => ({ isTTY: true, getColorDepth: () => depth });
const pipe = { isTTY: false };

describe('colourLevel', () => {
  it.each([
    { env: {}, stdout: pipe, level: 0, why: 'a pipe' },
    { env: {}, stdout: terminal(8), level: 2, why: 'a 256-colour terminal' },
    { env: {}, stdout: terminal(4), level: 1, why: 'a 16-colour terminal' },
    { env: {}, stdout: terminal(1), level: 0, why: 'a terminal without colour (TERM=dumb)' },
    { env: { NO_COLOR: '1' }, stdout: terminal(8), level: 0, why: 'NO_COLOR at a terminal' },
    { env: { NO_COLOR: '' }, stdout: terminal(8), level: 2, why: 'an empty NO_COLOR' },
    { env: { FORCE_COLOR: '1' }, stdout: pipe, level: 1, why: 'FORCE_COLOR on a pipe' },
    { env: { FORCE_COLOR: '' }, stdout: pipe, level: 1, why: 'an empty FORCE_COLOR on a pipe' },
    { env: { FORCE_COLOR: '3' }, stdout: pipe, level: 3, why: 'FORCE_COLOR=3' },
    {
      env: { FORCE_COLOR: '1' },
      stdout: terminal(8),
      level: 2,
      why: 'FORCE_COLOR=1 at a 256-colour terminal',
    },
    { env: { FORCE_COLOR: '0' }, stdout: terminal(8), level: 0, why: 'FORCE_COLOR=0' },
    { env: { FORCE_COLOR: 'false' }, stdout: terminal(8), level: 0, why: 'FORCE_COLOR=false' },
    { env: { FORCE_COLOR: '1', NO_COLOR: '1' }, stdout: pipe, level: 1, why: 'FORCE_COLOR over NO_COLOR' },
  ])('$why: $level', ({ env, stdout, level }) => {
    expect(colourLevel(env, stdout)).toBe(level);
  });
});

describe('createPalette', () => {
  it('paints nothing at level 0', () => {
    const palette = createPalette(0);
    expect(palette.enabled).toBe(false);
    expect(palette.running('running')).toBe('running');
  });

  it('gives the run colours their basic colours at level 1 and their own shades from level 2', () => {
    const basic = createPalette(1);
    expect([basic.running('r'), basic.failed('f'), basic.ceiling('c'), basic.finished('d')]).toEqual([
      '\u001b[32mr\u001b[39m',
      '\u001b[31mf\u001b[39m',
      '\u001b[33mc\u001b[39m',
      '\u001b[90md\u001b[39m',
    ]);
    const shades = createPalette(2);
    expect(shades.failed('f')).toBe('\u001b[38;5;124mf\u001b[39m');
    expect(shades.ceiling('c')).toBe('\u001b[38;5;178mc\u001b[39m');
    expect(shades.strong('s')).toBe('\u001b[1ms\u001b[22m');
  });
});

describe('paintStatus', () => {
  it('paints a run status in its spec colour, and leaves placed and stopped plain', () => {
    const palette = createPalette(2);
    expect(paintStatus(palette, 'running')).toBe('\u001b[38;5;34mrunning\u001b[39m');
    expect(paintStatus(palette, 'failed', 'failed (exit 3)')).toBe(
      '\u001b[38;5;124mfailed (exit 3)\u001b[39m',
    );
    expect(paintStatus(palette, 'ceiling_reached')).toBe('\u001b[38;5;178mceiling_reached\u001b[39m');
    expect(paintStatus(palette, 'succeeded')).toBe('\u001b[38;5;245msucceeded\u001b[39m');
    expect(paintStatus(palette, 'placed')).toBe('placed');
    expect(paintStatus(palette, 'stopped')).toBe('stopped');
    expect(paintStatus(createPalette(0), 'failed')).toBe('failed');
  });
});
