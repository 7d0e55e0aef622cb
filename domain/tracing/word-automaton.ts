// Whether a text contains any of a set of ASCII words, letters in any case: an Aho–Corasick
// automaton compiled into one table, so a text is read once, a character at a time, with one
// lookup each. It is the credential prefilter's engine (credentials.ts), which reads every string
// of every span. V8's regex engine ran the same words as one alternation at 5–9 ns a character on
// bench/llm-spans.ts's text (lower-casing it included); this table at 3.1–4.8 ns, in the same
// processes. modern-ahocorasick, the maintained package, ran 24 ns: it segments the text into
// graphemes and collects matches, where this needs neither.
//
// Each word may be given a group (for the credential prefilter, the detector whose hint it is):
// the answer is which groups' words occur, so its caller tests only those detectors' hints.
//
// Case folds for A–Z only, as a regex's `i` flag does without `u`: no other character folds to an
// ASCII letter there (the Kelvin sign is not `k`), and a character past ASCII is in no word.

const alphabet = 128;
/** A row's offset is its state's number shifted by this: alphabet is 2 ** rowShift. */
const rowShift = 7;

export class WordAutomaton {
  /** The next state of each state and character, as the state's row offset (state × alphabet). */
  private readonly next: Int32Array;
  /** States are numbered so that every state that ends a word comes last, from this row on. */
  private readonly firstFound: number;
  /** The groups of the words each state ends, one bit a group, by the state's number. */
  private readonly groups: Int32Array;

  /** `groupOf[i]`, if given, is word i's group (0 to 30); without it every word is in group 0. */
  constructor(words: readonly string[], groupOf?: readonly number[]) {
    for (const word of words)
      if (word === '' || [...word].some((char) => char.charCodeAt(0) >= alphabet))
        throw new Error(`a word must be ASCII and not empty: ${JSON.stringify(word)}`);
    const bits = words.map((_, index) => {
      const group = groupOf?.[index] ?? 0;
      if (!(Number.isInteger(group) && group >= 0 && group <= 30))
        throw new Error(`a word's group is 0 to 30: ${group}`);
      return 1 << group;
    });
    const { moves, ends } = trieWithFailures(
      words.map((word) => word.toLowerCase()),
      bits,
    );
    // Renumbered so that "found" is one comparison: states that end no word first.
    const order = moves
      .map((_, state) => state)
      .sort((a, b) => Number(ends[a] !== 0) - Number(ends[b] !== 0));
    const row = new Array<number>(moves.length);
    order.forEach((state, index) => {
      row[state] = index * alphabet;
    });
    this.next = new Int32Array(moves.length * alphabet);
    for (const [state, stateMoves] of moves.entries())
      for (let char = 0; char < alphabet; char += 1)
        this.next[row[state]! + char] = row[stateMoves[lowerCased(char)]!]!;
    const firstEnd = order.findIndex((state) => ends[state] !== 0);
    this.firstFound = firstEnd === -1 ? Number.POSITIVE_INFINITY : firstEnd * alphabet;
    this.groups = Int32Array.from(order, (state) => ends[state]!);
  }

  /** The groups whose words occur in the text, one bit a group (`1 << group`); 0 for none. */
  groupsIn(text: string): number {
    const { next, firstFound, groups } = this;
    // The root is row 0: it ends no word (no word is empty), so it sorts first.
    let state = 0;
    let found = 0;
    for (let index = 0; index < text.length; index += 1) {
      const char = text.charCodeAt(index);
      state = char < alphabet ? next[state + char]! : 0;
      if (state >= firstFound) found |= groups[state >>> rowShift]!;
    }
    return found;
  }
}

const lowerCased = (char: number): number => (char >= 65 && char <= 90 ? char + 32 : char);

/**
 * The trie of the words with every missing move filled in by its failure link (the longest proper
 * suffix that is also in the trie), so a move never backtracks; a state ends the words (their
 * groups' bits, 0 for none) that it or one of its suffixes ends.
 */
function trieWithFailures(
  words: readonly string[],
  bits: readonly number[],
): { moves: number[][]; ends: number[] } {
  const moves: number[][] = [new Array<number>(alphabet).fill(-1)];
  const ends = [0];
  for (const [index, word] of words.entries()) {
    let state = 0;
    for (const char of word) {
      const code = char.charCodeAt(0);
      if (moves[state]![code] === -1) {
        moves.push(new Array<number>(alphabet).fill(-1));
        ends.push(0);
        moves[state]![code] = moves.length - 1;
      }
      state = moves[state]![code]!;
    }
    ends[state] = ends[state]! | bits[index]!;
  }
  const failure = new Array<number>(moves.length).fill(0);
  const queue: number[] = [];
  for (let char = 0; char < alphabet; char += 1) {
    const child = moves[0]![char]!;
    if (child === -1) moves[0]![char] = 0;
    else queue.push(child);
  }
  // Breadth first: a state's failure is settled before its children's are.
  for (let head = 0; head < queue.length; head += 1) {
    const state = queue[head]!;
    ends[state] = ends[state]! | ends[failure[state]!]!;
    for (let char = 0; char < alphabet; char += 1) {
      const child = moves[state]![char]!;
      const fallback = moves[failure[state]!]![char]!;
      if (child === -1) moves[state]![char] = fallback;
      else {
        failure[child] = fallback;
        queue.push(child);
      }
    }
  }
  return { moves, ends };
}
