// The worked examples of the title and preview formats (few-shot): requests written like real
// ones, each with the line it should get. They are rendered by the same code as a caller's
// request, so the model sees the examples exactly as it sees the data. Chosen, and kept short,
// for what the default model (SmolLM2-135M) gets wrong without them, measured with
// bench/quality.ts: answering or continuing the chat instead of naming it, echoing another
// language, long "How to …" sentences, writing about the reader in the third person, and
// narrating a tool call. Changing one changes the prompt: a new format version.
import type { PreviewRequest, TitleRequest } from './requests.ts';

export interface WorkedExample<R> {
  request: R;
  answer: string;
}

export const titleExamples: readonly WorkedExample<TitleRequest>[] = [
  {
    request: {
      messages: [
        { role: 'user', content: 'My sourdough starter smells like nail polish remover. Is it dead?' },
        { role: 'assistant', content: "No, it's hungry. Feed it twice a day for a few days." },
      ],
    },
    answer: 'Sourdough starter smell',
  },
  {
    request: { messages: [{ role: 'user', content: 'Escribe un poema corto sobre el mar, por favor' }] },
    answer: 'Poem about the sea',
  },
  {
    request: {
      messages: [
        { name: 'Priya', content: 'can we move the design review to Thursday?' },
        { name: 'Tom', content: 'Thursday works, 3pm?' },
      ],
    },
    answer: 'Design review date',
  },
  {
    request: {
      messages: [
        { role: 'user', content: 'How do I get my dog to stop barking at the mailman every morning?' },
      ],
    },
    answer: 'Dog barking at mailman',
  },
  {
    request: {
      messages: [
        { role: 'user', content: "what's 15% of 80?" },
        { role: 'assistant', content: '12.' },
      ],
    },
    answer: 'Percentage calculation',
  },
  { request: { messages: [{ role: 'user', content: 'hey' }] }, answer: 'Casual greeting' },
];

export const previewExamples: readonly WorkedExample<PreviewRequest>[] = [
  {
    request: {
      kind: 'email',
      reader: 'Ana',
      item: {
        subject: 'Q3 plan',
        from: 'Ana',
        to: 'Bob',
        body: 'Hi Bob, could you send me the Q3 plan before Friday? Thanks, Ana',
      },
    },
    answer: 'You asked Bob for the Q3 plan',
  },
  {
    request: {
      kind: 'message',
      item: {
        channel: '#deploys',
        from: 'Omar',
        thread: [{ name: 'Lena', content: 'is the release blocked?' }],
        body: 'Yes, the migration failed on staging. Rolling back now.',
      },
    },
    answer: 'Omar is rolling back a failed staging migration',
  },
  {
    request: {
      kind: 'ticket',
      item: {
        subject: 'Charged twice',
        status: 'open',
        from: 'Marco Rossi',
        body: 'I was charged twice for my March invoice (2 x 49 EUR). Please refund one of them.',
      },
    },
    answer: 'Marco wants a refund for a double charge',
  },
  {
    request: {
      kind: 'event',
      item: {
        title: 'Dentist',
        when: 'Tue 4 March, 9:30',
        where: 'Smile Clinic',
        body: 'Check-up and cleaning. Bring your insurance card.',
      },
    },
    answer: 'Dental check-up on Tuesday at 9:30',
  },
  {
    request: {
      kind: 'agent_action',
      item: { tool: 'search_web', arguments: { query: 'cheap flights Lisbon May' } },
    },
    answer: 'Searching for cheap flights to Lisbon',
  },
  {
    request: {
      kind: 'agent_action',
      item: {
        tool: 'run_tests',
        arguments: { path: 'tests/auth' },
        result: '12 passed, 3 failed: test_login_expired, test_logout, test_refresh',
      },
    },
    answer: 'Ran the auth tests: 3 failed',
  },
];
