// A recorded conversation with Anthropic's Messages API (beta, computer toolset): the replies a model
// gave, served in order by a stand-in for `anthropic.beta.messages`.

import type {
  BetaContentBlock,
  BetaMessage,
  MessageCreateParamsNonStreaming,
} from '@anthropic-ai/sdk/resources/beta/messages/messages';

/** The part of `anthropic.beta.messages` the example uses; a real client fits it. */
export interface MessagesClient {
  create(params: MessageCreateParamsNonStreaming): Promise<BetaMessage>;
}

const computer = (id: string, name: string, input: object): BetaContentBlock => ({
  type: 'tool_use',
  id,
  name,
  input,
  toolset_name: 'computer',
});

const REPLIES: BetaContentBlock[][] = [
  [
    { type: 'text', text: 'I will look at the screen first.', citations: null },
    computer('toolu_01', 'screenshot', {}),
  ],
  [
    computer('toolu_02', 'left_click', { coordinate: [640, 360] }),
    computer('toolu_03', 'type', { text: 'ada@example.com' }),
    computer('toolu_04', 'key', { text: 'Return' }),
    computer('toolu_05', 'screenshot', {}),
  ],
  [{ type: 'text', text: 'Signed in as ada@example.com.', citations: null }],
];

/** Answers each `create` with the next recorded reply, and keeps the requests it was sent. */
export function recordedAnthropic(): MessagesClient & { requests: MessageCreateParamsNonStreaming[] } {
  const requests: MessageCreateParamsNonStreaming[] = [];
  return {
    requests,
    async create(params) {
      requests.push(structuredClone(params));
      const content = REPLIES[requests.length - 1];
      if (!content) throw new Error('The recorded conversation has no more replies');
      const toolUse = content.some((block) => block.type === 'tool_use');
      return {
        id: `msg_0${requests.length}`,
        type: 'message',
        role: 'assistant',
        model: params.model,
        content,
        stop_reason: toolUse ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        stop_details: null,
        container: null,
        context_management: null,
        diagnostics: null,
        usage: {
          input_tokens: 1200,
          output_tokens: 60,
          cache_creation: null,
          cache_creation_input_tokens: null,
          cache_read_input_tokens: null,
          fallback_credit: null,
          inference_geo: null,
          iterations: null,
          output_tokens_details: null,
          server_tool_use: null,
          service_tier: 'standard',
          speed: null,
        },
      };
    },
  };
}
