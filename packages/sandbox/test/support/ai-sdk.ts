// The AI SDK the package is built against (`ai` 7), for tests outside the package: the platform's
// own `ai` dependency is another major version, and `computerTools` makes its tools with this one.

export { generateText, isStepCount } from 'ai';
export { MockLanguageModelV4 } from 'ai/test';
