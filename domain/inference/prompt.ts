// A prompt as the model is asked it (docs/inference-prompts.md): the format's rules as the
// system message, worked examples as earlier turns (few-shot), the data as the last user turn,
// and, for a model that continues a started answer, the answer's label to continue from.

/** One OpenAI-compatible chat-completions message. */
export interface PromptMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** What the model is asked: the format's version (for the logs), its messages, where to stop. */
export interface Prompt {
  version: string;
  messages: PromptMessage[];
  /**
   * The last message is the started answer, to be continued rather than answered (sent as vLLM's
   * `continue_final_message`; llama.cpp's server and Ollama continue it unasked), and `stop`
   * ends it at the first line break.
   */
  answerStarted?: { stop: string[] };
}

/** How a deployed model takes a prompt (issue 13): whether it continues a started answer. */
export interface PromptStyle {
  /**
   * The endpoint continues a final assistant message (llama.cpp's server, Ollama, vLLM): the
   * answer is started with its label (`Title:`) and stopped at the first line break, which keeps
   * a small model from answering the chat instead.
   */
  answerPrefix: boolean;
}

/** A worked example: a request as the format renders it, and the line it should get. */
export interface PromptExample {
  user: string;
  answer: string;
}

export interface PromptFormat {
  version: string;
  system: string;
  /** The answer's label, without its colon: `Title`, `Preview`. */
  label: string;
  /**
   * Said again after the data, at the end of each user turn: a small model follows the last
   * thing it read, and after a long chat the system message is far behind.
   */
  instruction: string;
  /**
   * Where a started answer also ends, besides the line break: `. ` ends a preview at its first
   * sentence, as a small model runs on into a second one, or repeats the first, past the checks'
   * word limit. The stop string itself is not part of the answer.
   */
  stop?: readonly string[];
}

/**
 * The format's rules, the worked examples as earlier turns of the conversation (few-shot), the
 * data followed by the format's instruction, and with an answer prefix the started answer. The
 * examples are asked and answered the way the data is, label included when the answer is started
 * for the model, so all turns read alike.
 */
export function promptOf(
  format: PromptFormat,
  examples: readonly PromptExample[],
  user: string,
  style: PromptStyle,
): Prompt {
  const prefix = `${format.label}:`;
  const answered = (answer: string) => (style.answerPrefix ? `${prefix} ${answer}` : answer);
  const asked = (data: string) => `${data}\n\n(${format.instruction})`;
  return {
    version: format.version,
    messages: [
      { role: 'system', content: format.system },
      ...examples.flatMap((example): PromptMessage[] => [
        { role: 'user', content: asked(example.user) },
        { role: 'assistant', content: answered(example.answer) },
      ]),
      { role: 'user', content: asked(user) },
      ...(style.answerPrefix ? [{ role: 'assistant' as const, content: prefix }] : []),
    ],
    ...(style.answerPrefix ? { answerStarted: { stop: ['\n', ...(format.stop ?? [])] } } : {}),
  };
}
