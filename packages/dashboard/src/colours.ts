// The charts' series colours: distinct, each at least 3:1 against white (WCAG's non-text contrast).
const palette = ['#1f5fbf', '#b3261e', '#2e7d32', '#8e44ad', '#b35c00', '#00796b', '#5d4037', '#c2185b'];

export const seriesColour = (index: number) => palette[index % palette.length]!;
