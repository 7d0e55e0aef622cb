// Pseudo-random numbers from a seed (a linear congruential generator), for tests that draw many
// inputs: the same numbers on every run, so a failure can be replayed.

/** Numbers in [0, 1), from the generator's high bits (its low bits repeat with a short period). */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Whole numbers from 0 up to, not including, the bound asked for. */
export function seededBelow(seed: number): (bound: number) => number {
  const next = seededRandom(seed);
  return (bound) => Math.floor(next() * bound);
}
