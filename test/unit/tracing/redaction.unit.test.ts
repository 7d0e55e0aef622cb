import { describe, expect, it } from 'vitest';
import {
  credentialDetectors,
  hintedDetectors,
  isCredentialKey,
  wordsOfHint,
} from '../../../domain/tracing/credentials.ts';
import { redactAttributeValue, redactJson, redactText } from '../../../domain/tracing/redaction.ts';
import { seededBelow } from '../../harness/seeded-random.ts';

// Fake credentials are assembled at run time so no credential-shaped literal sits in the source.
const alnum = 'aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zC';
const fake = (prefix: string, length: number, alphabet = alnum): string =>
  prefix + Array.from({ length }, (_, i) => alphabet[(i * 7 + 3) % alphabet.length]).join('');
const upper = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

const openai = fake('sk-' + 'proj-', 48);
const anthropic = fake('sk-' + 'ant-api03-', 40);
const aws = fake('AK' + 'IA', 16, upper);
const awsSession = fake('AS' + 'IA', 16, upper);
const github = fake('gh' + 'p_', 36);
const jwt = [
  'eyJhbGciOiJIUzI1NiJ9',
  'eyJzdWIiOiIxMjM0NTY3ODkwIn0',
  'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
].join('.');
const pemBody = `\n${fake('MIIE', 60)}\n${fake('', 64)}\n`;

describe('redactText: ordinary text passes untouched', () => {
  const base64Image = `data:image/png;base64,${Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919) % 256)).toString('base64')}`;
  it.each([
    'The model predicts the next token given the previous ones.',
    'Each token costs $0.00001; the prompt had 512 tokens.',
    'Forgot your password? Click "Reset password" to get a new one.',
    'Reset your password: click the link we sent you.',
    'Never share your password or secret with anyone.',
    'The secret to good prompts is clear instructions.',
    "The secret: it's all about timing.",
    'Send the key as a Bearer token in the Authorization header.',
    'Bearer tokens are sent in the Authorization header; see RFC 6750.',
    'Use Basic authentication only over TLS.',
    'Basic usage: call the function twice.',
    'Authorization is checked before the token is refreshed.',
    'The password must be at least 12 characters.',
    'password reset tokens expire after 15 minutes',
    'passwords: 3 found, secrets: none',
    'cookie: a small piece of data stored by the browser',
    'top-secret project codename',
    'input_tokens: 42, output_tokens: 17, total_tokens: 59',
    'max_tokens=512 temperature=0.7 top_p=0.9',
    '{"max_tokens": 512, "temperature": 0.2}',
    '{"usage": {"prompt_tokens": 9, "completion_tokens": 12}}',
    'gen_ai.usage.input_tokens=120',
    'llm.token_count.prompt: 120',
    '{"token": "Hello", "logprob": -0.12, "top_logprobs": []}',
    'token_count: 128',
    'secret_name: prod/db',
    'password = getpass.getpass("Password: ")',
    'const password = req.body.password;',
    'api_key = os.environ["OPENAI_API_KEY"]',
    'client = OpenAI(api_key=os.getenv("OPENAI_API_KEY"))',
    'def login(user: str, password: str) -> bool:',
    'interface Credentials { username: string; password: string }',
    'if password == confirm_password:',
    'password_hash = bcrypt.hashpw(pw, salt)',
    'export OPENAI_API_KEY=',
    'export OPENAI_API_KEY=$OPENAI_API_KEY',
    'password: ********',
    'api_key: <your-api-key>',
    'Authorization: Bearer <API_KEY>',
    'OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20<API_KEY>',
    'curl -H "Authorization: Bearer $OPENAI_API_KEY" https://api.openai.com/v1/models',
    'Authorization: Bearer $' + '{TOKEN}',
    'sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    'commit 3f786850e387550fdab836ed7e6dc881de23001b',
    'trace 0af7651916cd43dd8448eb211c80319c span b7ad6b7169203331',
    'id: 123e4567-e89b-12d3-a456-426614174000',
    'https://api.openai.com/v1/chat/completions',
    'http://localhost:8080/api/otlp/v1/traces',
    'https://example.com/search?q=password+reset&page=2',
    'postgres://localhost:5432/orrery',
    'https://user@example.com/path',
    'ssh://git@github.com:22/org/repo.git',
    'http://example.com:8080/path@v2',
    'mailto:someone@example.com',
    'risk-assessment-framework-2024-final-version-approved-by-board',
    'The AKIA prefix marks AWS access key ids.',
    'ghp_ tokens are GitHub personal access tokens',
    'Use the hf_hub_download function',
    'eyJ is how base64 JSON starts',
    'A PEM file starts with a BEGIN line',
    '```python\nimport os\nprint(os.environ.get("HOME"))\n```',
    '{"role": "user", "content": "What is my password policy?"}',
    '| token | count |\n| --- | --- |\n| the | 12 |',
    'Résumé: naïve café — 日本語のテキスト 😀',
    '1234567890123456789012345678901234567890',
    'key: value',
    base64Image,
  ])('%s', (text) => {
    expect(redactText(text)).toEqual({ text, count: 0 });
  });
});

describe('redactText: credentials in context are removed', () => {
  it.each([
    ['password: hunter2', 'password: [REDACTED]', 1],
    ['Password: P@ssw0rd for admin', 'Password: [REDACTED] for admin', 1],
    ['db_password=correcthorse', 'db_password=[REDACTED]', 1],
    ['"api_key": "abc123xyz"', '"api_key": "[REDACTED]"', 1],
    ["{'password': 'hunter2', 'user': 'bob'}", "{'password': '[REDACTED]', 'user': 'bob'}", 1],
    ['SECRET=s3cr3t-value', 'SECRET=[REDACTED]', 1],
    ['passphrase = "correct horse battery staple"', 'passphrase = "[REDACTED]"', 1],
    ['clientSecret: "abc123"', 'clientSecret: "[REDACTED]"', 1],
    ['{\\"password\\":\\"hunter2\\"}', '{\\"password\\":\\"[REDACTED]\\"}', 1],
    ['AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'AWS_SECRET_ACCESS_KEY=[REDACTED]', 1],
    ['export GITHUB_TOKEN="abc123"', 'export GITHUB_TOKEN="[REDACTED]"', 1],
    ['password=a1 api_key=b2', 'password=[REDACTED] api_key=[REDACTED]', 2],
    [`Authorization: Bearer ${jwt}`, 'Authorization: Bearer [REDACTED]', 1],
    [
      'curl -H "Authorization: Basic dXNlcjpwYXNz" https://x',
      'curl -H "Authorization: Basic [REDACTED]" https://x',
      1,
    ],
    [
      `headers = {"Authorization": "Bearer ${openai}"}`,
      'headers = {"Authorization": "Bearer [REDACTED]"}',
      1,
    ],
    [
      'OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20abcdef123456',
      'OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20[REDACTED]',
      1,
    ],
    [`sent with bearer ${fake('', 30)}`, 'sent with bearer [REDACTED]', 1],
    [`x-api-key: ${anthropic}`, 'x-api-key: [REDACTED]', 1],
    ['postgres://app:hunter2@db.internal:5432/app', 'postgres://app:[REDACTED]@db.internal:5432/app', 1],
    ['redis://:s3cret@cache:6379/0', 'redis://:[REDACTED]@cache:6379/0', 1],
    [
      `https://oauth2:${fake('glpat-', 20)}@gitlab.com/g/r.git`,
      'https://oauth2:[REDACTED]@gitlab.com/g/r.git',
      1,
    ],
    [
      'https://s.example.com/f?sv=2021&sig=abc%2Bdef%3D&se=2024',
      'https://s.example.com/f?sv=2021&sig=[REDACTED]&se=2024',
      1,
    ],
    [
      'https://api.example.com/v1?api_key=abc123&format=json',
      'https://api.example.com/v1?api_key=[REDACTED]&format=json',
      1,
    ],
    ['https://example.com/cb?token=abc123#x', 'https://example.com/cb?token=[REDACTED]#x', 1],
    ['https://example.com/reset?password=hunter2', 'https://example.com/reset?password=[REDACTED]', 1],
    [`my key is ${openai}.`, 'my key is [REDACTED].', 1],
    [`ANTHROPIC_API_KEY=${anthropic}`, 'ANTHROPIC_API_KEY=[REDACTED]', 1],
    [`try ${anthropic} or ${aws}`, 'try [REDACTED] or [REDACTED]', 2],
    [`aws id ${awsSession}`, 'aws id [REDACTED]', 1],
    [
      `git remote add origin https://${github}@github.com/o/r`,
      'git remote add origin https://[REDACTED]@github.com/o/r',
      1,
    ],
    [`pat ${fake('github_' + 'pat_', 82)}`, 'pat [REDACTED]', 1],
    [`app ${fake('gh' + 'o_', 36)} and ${fake('gh' + 's_', 36)}`, 'app [REDACTED] and [REDACTED]', 2],
    [`slack ${fake('xo' + 'xb-', 40)}`, 'slack [REDACTED]', 1],
    [
      `post to https://hooks.slack.com/services/${fake('T', 8, upper)}/${fake('B', 8, upper)}/${fake('', 24)}`,
      'post to https://hooks.slack.com/services/[REDACTED]',
      1,
    ],
    [`google ${fake('AI' + 'za', 35)}`, 'google [REDACTED]', 1],
    [
      `stripe ${fake('sk_' + 'live_', 24)} ${fake('rk_' + 'live_', 24)} ${fake('sk_' + 'test_', 24)}`,
      'stripe [REDACTED] [REDACTED] [REDACTED]',
      3,
    ],
    [`hf ${fake('h' + 'f_', 34)}`, 'hf [REDACTED]', 1],
    [`npm ${fake('np' + 'm_', 36)}`, 'npm [REDACTED]', 1],
    [`jwt ${jwt} end`, 'jwt [REDACTED] end', 1],
    [
      `key -----BEGIN RSA PRIVATE KEY-----${pemBody}-----END RSA PRIVATE KEY----- done`,
      'key -----BEGIN RSA PRIVATE KEY-----[REDACTED]-----END RSA PRIVATE KEY----- done',
      1,
    ],
    [`cut -----BEGIN PRIVATE KEY-----${pemBody}`, 'cut -----BEGIN PRIVATE KEY-----[REDACTED]', 1],
  ])('%s', (text, expected, count) => {
    expect(redactText(text)).toEqual({ text: expected, count });
  });
});

describe('redactText: every detector is exercised and linear', () => {
  it('has unique detector names', () => {
    const names = credentialDetectors.map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
  });

  const size = 128 * 1024;
  it.each([
    ['letters', 'a'.repeat(size)],
    ['underscores', 'a_'.repeat(size / 2)],
    ['dashes', '-'.repeat(size)],
    ['colons', ':'.repeat(size)],
    ['schemes', 'https://'.repeat(size / 8)],
    ['user info', 'http://a:'.repeat(size / 9)],
    ['Bearer words', 'Bearer '.repeat(size / 7)],
    ['PEM headers', '-----BEGIN PRIVATE KEY-----'.repeat(size / 28)],
    ['open quotes', '"password": "'.repeat(size / 13)],
    ['key chunks', 'db.'.repeat(size / 3)],
  ])('finishes on 128 KiB of %s', (_, text) => {
    expect(redactText(text).text.length).toBeGreaterThan(0);
  });
});

describe('isCredentialKey', () => {
  it.each([
    'password',
    'db.password',
    'http.request.header.authorization',
    'http.request.header.x-api-key',
    'api_key',
    'apiKey',
    'OPENAI_API_KEY',
    'client_secret',
    'clientSecret',
    'access_token',
    'refresh_token',
    'auth_token',
    'private_key',
    'passwd',
    'secret',
    'aws.secret_access_key',
    'GITHUB_TOKEN',
    'http.response.header.set-cookie',
    'credentials',
    'API Key',
  ])('%s names a credential', (key) => {
    expect(isCredentialKey(key)).toBe(true);
  });

  it.each([
    'gen_ai.usage.input_tokens',
    'gen_ai.usage.output_tokens',
    'llm.token_count.prompt',
    'llm.token_count.completion',
    'max_tokens',
    'token',
    'tokens',
    'secret_name',
    'password_required',
    'session.id',
    'user.id',
    'gen_ai.request.model',
    'author',
    'authorized',
    'monkey',
    'key',
    'cookie_consent',
    'http.request.header.content-type',
    'mypassword',
  ])('%s does not', (key) => {
    expect(isCredentialKey(key)).toBe(false);
  });
});

describe('redactJson and redactAttributeValue', () => {
  it.each([
    [{ password: 'hunter2', user: 'bob' }, { password: '[REDACTED]', user: 'bob' }, 1],
    [
      { config: { db: { password: 'x', host: 'h' } } },
      { config: { db: { password: '[REDACTED]', host: 'h' } } },
      1,
    ],
    [{ authorization: ['Bearer abc'] }, { authorization: '[REDACTED]' }, 1],
    [{ credentials: { type: 'service_account', key: 'k' } }, { credentials: '[REDACTED]' }, 1],
    [{ password: 1234 }, { password: '[REDACTED]' }, 1],
    [
      { password: null, secret: '', api_key: false, private_key: {} },
      { password: null, secret: '', api_key: false, private_key: {} },
      0,
    ],
    [
      { messages: [{ content: `my key is ${anthropic}` }] },
      { messages: [{ content: 'my key is [REDACTED]' }] },
      1,
    ],
    [{ token: 'Hello', logprob: -0.1 }, { token: 'Hello', logprob: -0.1 }, 0],
    [[`a ${aws}`, 'b', `c ${github}`], ['a [REDACTED]', 'b', 'c [REDACTED]'], 2],
    ['password: hunter2', 'password: [REDACTED]', 1],
    [42, 42, 0],
  ])('%j', (value, expected, count) => {
    expect(redactJson(value)).toEqual({ value: expected, count });
  });

  it.each([
    ['db.password', 'x', '[REDACTED]', 1],
    ['http.request.header.authorization', ['Bearer abc'], '[REDACTED]', 1],
    ['gen_ai.usage.input_tokens', 42, 42, 0],
    ['llm.token_count.prompt', 7, 7, 0],
    ['input.value', '{"api_key": "abc123"}', '{"api_key": "[REDACTED]"}', 1],
    ['db.statement', 'SELECT 1', 'SELECT 1', 0],
  ])('%s', (key, value, expected, count) => {
    expect(redactAttributeValue(key, value)).toEqual({ value: expected, count });
  });
});

describe('the shortest text that can hold a credential', () => {
  // redactText passes over text shorter than three characters without looking: no detector's hint
  // (what any of its matches must contain) is found in any one- or two-character text.
  it('is three characters long', () => {
    const printable = Array.from({ length: 95 }, (_, index) => String.fromCharCode(32 + index));
    const texts = [...printable, ...printable.flatMap((first) => printable.map((second) => first + second))];
    for (const { name, hint } of credentialDetectors) {
      expect(
        texts.filter((text) => hint.test(text)),
        name,
      ).toEqual([]);
    }
  });
});

describe('hintedDetectors', () => {
  // It runs one automaton of every hint's words, letters in any case: it must name exactly the
  // detectors whose hints find the text with the `i` flag (which folds no character past ASCII to
  // a letter).
  const hintsFind = (text: string) =>
    credentialDetectors.reduce(
      (bits, { hint }, index) => (new RegExp(hint.source, 'i').test(text) ? bits | (1 << index) : bits),
      0,
    );
  const samples = [
    'a plain sentence with nothing to hide',
    'Authorization: Bearer abc',
    'my PASSWORD is hunter2',
    'https://user:pw@example.com',
    'see ?access_token=1 and &sig=2',
    'ghp_ and github_pat_ and glpat- and gsk_',
    'xoxb- xai- hooks.slack.com hf_ npm_ sg. ya29. aiza akia asia eyj sk- sk-ant-',
    '_live_ _test_ _LIVE_',
    '-----BEGIN RSA PRIVATE KEY-----',
    'pwd pass secret key token auth credential cookie basic',
    'ke y to ken pa ss _liv_ gh_ xox- ?x=1 :/ /',
    // The Kelvin sign and the long s lower-case to ASCII letters, but no hint's `i` matches them.
    '\u212Aey \u017Fecret',
    'pa\u00DFword t\u00F6ken',
  ];
  it.each(samples)('agrees with the hints on %j', (text) => {
    expect(hintedDetectors(text)).toBe(hintsFind(text));
  });

  it('agrees with the hints on every cut of the samples', () => {
    for (const sample of samples)
      for (let start = 0; start < sample.length; start += 1)
        for (let end = start + 1; end <= sample.length; end += 1) {
          const text = sample.slice(start, end);
          expect(hintedDetectors(text), text).toBe(hintsFind(text));
        }
  });

  it("finds no hint across or inside the marker a removal leaves, so redactText's later detectors need no new look", () => {
    const words = credentialDetectors.flatMap(({ hint }) =>
      wordsOfHint(hint.source).map((w) => w.toLowerCase()),
    );
    for (const word of words) {
      expect(word, word).not.toMatch(/[[\]]/);
      expect('[redacted]'.includes(word), word).toBe(false);
    }
    expect(hintedDetectors('[REDACTED]')).toBe(0);
  });

  it("agrees with the hints on texts made of pieces of the hints' words, in mixed case", () => {
    const words = credentialDetectors.flatMap(({ hint }) => wordsOfHint(hint.source));
    const characters = `${[...new Set(words.join(''))].join('')}XYZé\u212A`;
    const below = seededBelow(12345);
    const piece = () => {
      if (below(2) === 0) return characters[below(characters.length)]!;
      const word = words[below(words.length)]!;
      // Often a whole word, else a part of one: a near miss, or half of a word that the next piece
      // may complete.
      const start = below(3) === 0 ? 0 : below(word.length);
      const cut =
        start === 0 && below(2) === 0 ? word : word.slice(start, start + 1 + below(word.length - start));
      return [...cut].map((char) => (below(2) === 0 ? char.toUpperCase() : char)).join('');
    };
    let found = 0;
    for (let round = 0; round < 20_000; round += 1) {
      const text = Array.from({ length: 1 + below(5) }, piece).join('');
      const expected = hintsFind(text);
      expect(hintedDetectors(text), text).toBe(expected);
      if (expected !== 0) found += 1;
    }
    // Both answers were drawn often enough to mean something.
    expect(found).toBeGreaterThan(1_000);
    expect(found).toBeLessThan(19_000);
  });
});
