// A recorded conversation with OpenAI's Responses API (computer tool): the responses a model gave,
// served in order by a stand-in for `openai.responses`.

import type {
  Response,
  ResponseCreateParamsNonStreaming,
  ResponseOutputItem,
} from 'openai/resources/responses/responses';

/** The part of `openai.responses` the example uses; a real client fits it. */
export interface ResponsesClient {
  create(body: ResponseCreateParamsNonStreaming): Promise<Response>;
}

const OUTPUTS: ResponseOutputItem[][] = [
  [
    {
      type: 'computer_call',
      id: 'cu_01',
      call_id: 'call_01',
      status: 'completed',
      pending_safety_checks: [],
      actions: [{ type: 'screenshot' }],
    },
  ],
  [
    {
      type: 'computer_call',
      id: 'cu_02',
      call_id: 'call_02',
      status: 'completed',
      pending_safety_checks: [],
      actions: [
        { type: 'click', button: 'left', x: 640, y: 360 },
        { type: 'type', text: 'ada@example.com' },
        { type: 'keypress', keys: ['ENTER'] },
        { type: 'wait' },
      ],
    },
  ],
  [
    {
      type: 'message',
      id: 'msg_03',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Signed in as ada@example.com.', annotations: [] }],
    },
  ],
];

/** Answers each `create` with the next recorded response, and keeps the requests it was sent. */
export function recordedOpenAI(): ResponsesClient & { requests: ResponseCreateParamsNonStreaming[] } {
  const requests: ResponseCreateParamsNonStreaming[] = [];
  return {
    requests,
    async create(body) {
      requests.push(structuredClone(body));
      const output = OUTPUTS[requests.length - 1];
      if (!output) throw new Error('The recorded conversation has no more responses');
      return {
        id: `resp_0${requests.length}`,
        object: 'response',
        created_at: 1_795_000_000 + requests.length,
        model: body.model ?? 'gpt-5.5',
        output,
        output_text: output
          .flatMap((item) =>
            item.type === 'message'
              ? item.content.flatMap((c) => (c.type === 'output_text' ? [c.text] : []))
              : [],
          )
          .join(''),
        access_programs: null,
        error: null,
        incomplete_details: null,
        instructions: null,
        metadata: null,
        parallel_tool_calls: true,
        temperature: null,
        tool_choice: 'auto',
        tools: body.tools ?? [],
        top_p: null,
      };
    },
  };
}
