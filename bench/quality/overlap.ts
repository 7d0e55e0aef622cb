// How close an answer is to the line a person wrote (the corpus's `reference`): ROUGE-1 F1, the
// harmonic mean of the shares of each side's words found in the other (lower-cased, counted with
// repeats). A rough signal for comparing prompts, not a check: a good answer in other words scores
// low, and an answer copied from the input can score high.

function words(line: string): string[] {
  return line.toLowerCase().match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu) ?? [];
}

export function rouge1(answer: string, reference: string): number {
  const said = words(answer);
  const wanted = words(reference);
  if (said.length === 0 || wanted.length === 0) return 0;
  const left = new Map<string, number>();
  for (const word of wanted) left.set(word, (left.get(word) ?? 0) + 1);
  let shared = 0;
  for (const word of said) {
    const count = left.get(word) ?? 0;
    if (count > 0) {
      shared += 1;
      left.set(word, count - 1);
    }
  }
  if (shared === 0) return 0;
  const precision = shared / said.length;
  const recall = shared / wanted.length;
  return (2 * precision * recall) / (precision + recall);
}
