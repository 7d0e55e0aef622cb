// "English" in the output checks (spec 000, Output checks; "All output is English") as a
// deterministic heuristic, documented in docs/inference-prompts.md:
// 1. every letter is a Latin-script letter (no Cyrillic, Greek, CJK, Arabic, …), and
// 2. the line is not predominantly another Latin-script language: it is refused when it holds
//    at least two distinct function words of French, Spanish, Portuguese, Italian, German or
//    Dutch and more of them than distinct English function words.
// A word shared by two languages is listed once. Function words that are also English words (a, in, die, also, was, no, per, van, …) are in
// no foreign list, so English names and loanwords (La Paz, Le Monde, café) do not trip it.

const nonLatinLetter = /(?!\p{Script=Latin})\p{L}/u;

const englishFunctionWords = new Set(
  (
    'the a an and or but of to in on at for with from by about as into onto over under after before ' +
    'is are was were be been being has have had do does did not no this that these those it its ' +
    'you your we our they their them he she his her i my me us will would can could should may ' +
    'how what when where why who which if than then there here all any some new up out off'
  ).split(' '),
);

const foreignFunctionWords = new Set(
  [
    // French
    'le la les des du de une et est pour avec dans sur pas ce cette ces qui que vous nous il elle ' +
      'au aux ou où sont mais votre notre leur à',
    // Spanish
    'el los las del para por con una uno unos es está y en su sus lo se te mi tu como cómo qué muy ' +
      'pero más también este esta estos fue ser ya entre cuando donde sobre',
    // Portuguese
    'uma não da das em na é mas ao pelo pela você',
    // Italian
    'gli della delle dei di che sono alla nel questo anche più ma',
    // German
    'der und ist nicht mit für von zu den dem ein eine einen auf sich auch wie wir ich sie im ' +
      'zum zur bei nach aus oder aber wird werden über noch nur',
    // Dutch
    'het een niet voor zijn ik je wat maar ook naar bij uit worden wordt deze dit',
  ]
    .join(' ')
    .split(' '),
);

/** Distinct lowercased words made of letters (apostrophes and hyphens split words). */
function letterWords(line: string): Set<string> {
  return new Set(
    line
      .normalize('NFC')
      .toLowerCase()
      .split(/[^\p{L}\p{M}]+/u)
      .filter((w) => w !== ''),
  );
}

function countIn(words: Set<string>, list: Set<string>): number {
  let count = 0;
  for (const word of words) if (list.has(word)) count += 1;
  return count;
}

export function hasOnlyLatinLetters(line: string): boolean {
  return !nonLatinLetter.test(line);
}

export function isPredominantlyForeign(line: string): boolean {
  const words = letterWords(line);
  const foreign = countIn(words, foreignFunctionWords);
  return foreign >= 2 && foreign > countIn(words, englishFunctionWords);
}

export function isEnglish(line: string): boolean {
  return hasOnlyLatinLetters(line) && !isPredominantlyForeign(line);
}
