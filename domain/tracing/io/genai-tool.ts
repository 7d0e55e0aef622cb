// GenAI tool calls: an `execute_tool` span's `gen_ai.tool.call.arguments` is its input and
// `gen_ai.tool.call.result` its output, each stored as a `{ value }`.

import { type Convention, readValue } from './convention.ts';

export const genAiTool: Convention = {
  name: 'GenAI tool calls',
  keyPrefixes: ['gen_ai.'],
  readInput: (source) => readValue(source.attributes, 'gen_ai.tool.call.arguments'),
  readOutput: (source) => readValue(source.attributes, 'gen_ai.tool.call.result'),
};
