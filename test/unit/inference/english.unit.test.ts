import { describe, expect, it } from 'vitest';
import { hasOnlyLatinLetters, isEnglish, isPredominantlyForeign } from '../../../domain/inference/english.ts';

describe('English: only Latin-script letters', () => {
  it.each([
    { line: 'Password reset help', latin: true },
    { line: 'Café résumé naïve Ångström', latin: true },
    { line: 'Q3 plan 2024 — €5, 10%', latin: true },
    { line: 'Сброс пароля', latin: false },
    { line: 'Password Ω', latin: false },
    { line: 'パスワード', latin: false },
    { line: 'إعادة تعيين', latin: false },
    { line: 'Plan 计划', latin: false },
  ])('"$line": $latin', ({ line, latin }) => {
    expect(hasOnlyLatinLetters(line)).toBe(latin);
  });
});

describe('English: not predominantly another Latin-script language', () => {
  it.each([
    { line: 'Password reset help', foreign: false },
    { line: 'Trip to La Paz', foreign: false },
    { line: 'Le Monde article summary', foreign: false },
    { line: 'La La Land review', foreign: false },
    { line: 'Trip to Las Vegas and Los Angeles', foreign: false },
    { line: 'Die Hard also was great', foreign: false },
    { line: 'Bob asks for the plan before the meeting', foreign: false },
    { line: 'Restablecer la contraseña', foreign: false },
    { line: 'Cómo restablecer la contraseña', foreign: true },
    { line: 'Ana te envió el plan del tercer trimestre', foreign: true },
    { line: 'Bob demande le plan pour la réunion', foreign: true },
    { line: 'Bob fragt nach dem Plan für das Treffen', foreign: true },
    { line: 'Você enviou o plano para a reunião', foreign: true },
    { line: 'Il piano della riunione è pronto', foreign: true },
    { line: 'Het plan voor de vergadering', foreign: true },
  ])('"$line": $foreign', ({ line, foreign }) => {
    expect(isPredominantlyForeign(line)).toBe(foreign);
    expect(isEnglish(line)).toBe(!foreign);
  });
});
