export const defaultPrices: readonly import('./prices.ts').DefaultModelPrice[] = []; // stub: replaced by the default table
