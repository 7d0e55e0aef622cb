import { WordAutomaton } from './word-automaton.ts';

// What a credential looks like, for "Credential removal" (001, Limits): the key names that mark a
// credential, and one table of named detectors for credentials inside text, read by redactText
// (redaction.ts). Each detector's named group `value` (or `quoted`) is the credential; the rest of
// its match (key, label, scheme, URL) stays, so the text still reads. Every pattern is linear:
// bounded or separator-delimited repetitions only, no nested quantifiers over the same characters.

/** Key words naming a credential; `_` stands for an optional `_`, `.`, `-` or space; letters match any case. */
const credentialWords = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'secret_key',
  'api_key',
  'access_key',
  'private_key',
  'access_token',
  'refresh_token',
  'auth_token',
  'id_token',
  'session_token',
  'bearer_token',
  'api_token',
  'oauth_token',
  'security_token',
  'private_token',
  'authorization',
  'credential',
  'credentials',
  'cookie',
];

const anyCase = (word: string): string =>
  word.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`).replaceAll('_', '[_.\\- ]?');
// A credential word starts a key (`password`), follows a separator (`db.password`, `X-API-KEY`) or
// starts a camelCase word (`dbPassword`, `clientSecret`), and ends its key. An upper-case `_TOKEN`
// ending is the shape of a token's environment variable (`GITHUB_TOKEN`).
const firstLetters = [...new Set(credentialWords.map((word) => word[0]!))].join('');
const credentialWord =
  // The first lookahead is only for speed: it lets the engine skip most positions at once.
  `(?=[${firstLetters}${firstLetters.toUpperCase()}T])(?:(?<![A-Za-z0-9])|(?<=[a-z0-9])(?=[A-Z]))` +
  `(?:${[...credentialWords.map(anyCase), '(?<=[A-Z0-9]_)TOKEN'].join('|')})(?![A-Za-z0-9])`;

// So `db.password`, `http.request.header.authorization`, `x-api-key`, `OPENAI_API_KEY` and
// `clientSecret` name a credential; `gen_ai.usage.input_tokens`, `llm.token_count.prompt`,
// `max_tokens` and a bare `token` (the key of every logprobs entry) do not.
const credentialKey = new RegExp(`${credentialWord}$`);

/** Whether an object or attribute key names a credential, so its whole value is one. */
export function isCredentialKey(key: string): boolean {
  // Spans repeat the same few keys over and over: remembering the answer spares the regex.
  let known = credentialKeyAnswers.get(key);
  if (known === undefined) {
    known = credentialKey.test(key);
    if (credentialKeyAnswers.size >= maxRememberedKeys) credentialKeyAnswers.clear();
    credentialKeyAnswers.set(key, known);
  }
  return known;
}

const credentialKeyAnswers = new Map<string, boolean>();
/** Bounds the memory that keys never seen twice (ids used as keys, say) can take. */
const maxRememberedKeys = 10_000;

// Values that stand in for a credential rather than being one: masks, templates, type names.
const placeholderShape = /^(?:\*+|x+|X+|\.\.\.|…|\$\{?\w+\}?|%\w+%|\{\{[^}]*\}\}|<[^>]*>)$/;
const placeholderWords = new Set([
  ...['string', 'str', 'number', 'int', 'integer', 'bool', 'boolean', 'any', 'unknown', 'object'],
  ...['null', 'none', 'nil', 'undefined', 'true', 'false', 'required', 'optional'],
  ...['redacted', 'hidden', 'masked', 'empty'],
]);
const isPlaceholder = (value: string): boolean =>
  placeholderShape.test(value) || placeholderWords.has(value.toLowerCase());

export interface CredentialDetector {
  name: string;
  /**
   * What any match must contain: a cheap test that lets text without it skip the detector. Most
   * span text holds no credential at all, and the hot path checks every string of every span.
   */
  hint: RegExp;
  /** Flags `dg`; the named group `value` or `quoted` is what is removed. */
  pattern: RegExp;
  /** Whether a match is a credential (not prose, code or a placeholder); all are when absent. */
  accept?: (value: string, match: RegExpExecArray) => boolean;
}

/** Only the credential itself, delimited by characters a token never contains. */
const token = (body: string): RegExp =>
  new RegExp(`(?<![A-Za-z0-9_-])(?<value>${body})(?![A-Za-z0-9_-])`, 'dg');

const notYetRedacted = '(?!\\[REDACTED\\])';
const schemes = '[Bb]earer|[Bb]asic|[Tt]oken|[Bb]ot|[Dd]igest';
const dottedIdentifier = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/;
const wordLike = /^[A-Za-z]+(?:-[A-Za-z]+)*[.!?]*$/;
const endsLine = /^[ \t]*(?:[\r\n,;}\]]|$)/;

/**
 * `key: value`, `key=value`, `"key": "value"`, `key => 'value'` with a credential key. Code and
 * prose are told apart from configuration: a value followed by `(`, `[`, `{` or `<` is a call or a
 * type, a dotted identifier (`os.environ`, `req.body.password`) is a reference, and after a colon a
 * value of letters alone must end its line (`Reset your password: click the link` is prose).
 */
function acceptKeyValue(value: string, match: RegExpExecArray): boolean {
  const groups = match.groups ?? {};
  if (isPlaceholder(value)) return false;
  if (groups['quoted'] !== undefined || groups['scheme'] !== undefined) return true;
  const rest = match.input.slice(match.index + match[0].length, match.index + match[0].length + 64);
  if (/^[([{<]/.test(rest) || dottedIdentifier.test(value)) return false;
  return groups['sep'] !== ':' || !wordLike.test(value) || endsLine.test(rest);
}

/** A Basic credential is base64 of `user:password`. */
function acceptBasic(value: string): boolean {
  if (value.length % 4 !== 0) return false;
  const decoded = Buffer.from(value, 'base64').toString('latin1');
  return decoded.includes(':') && /^[\x20-\x7e]+$/.test(decoded);
}

/** A bearer token has a digit or is too long to be a word (`Bearer tokens are…` is prose). */
const acceptBearer = (value: string): boolean =>
  value.length >= 8 && (/\d/.test(value) || value.length >= 24);

/** In order: a detector runs on the text the ones before it left, and never matches `[REDACTED]`. */
export const credentialDetectors: readonly CredentialDetector[] = [
  {
    name: 'pem_private_key',
    hint: /PRIVATE KEY/,
    pattern:
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?<value>(?:[^-]|-(?!----))*)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----)?/dg,
    accept: (value) => value.trim() !== '',
  },
  {
    name: 'key_value',
    hint: /pass|pwd|secret|key|token|auth|credential|cookie/i,
    pattern: new RegExp(
      `${credentialWord}(?:\\\\?["'])?` +
        `[ \\t]*(?<sep>:=|=>|[:=])(?!=)[ \\t]*(?<open>\\\\?["'\`])?` +
        `(?:(?<scheme>${schemes})(?:[ \\t]+|%20)|(?!(?:${schemes})\\b))${notYetRedacted}` +
        `(?:(?<=["'\`])(?<quoted>[^"'\`\\\\\\r\\n]+)(?=\\\\?["'\`])|(?<value>\\$\\{[^}\\s]*\\}|[^\\s"'\`\\\\,;&(){}\\[\\]<>]+))`,
      'dg',
    ),
    accept: acceptKeyValue,
  },
  {
    name: 'url_password',
    hint: /:\/\//,
    pattern: new RegExp(
      `(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,30}://[^\\s/?#@:"'<>]*:${notYetRedacted}(?<value>[^\\s/?#@"'<>]+)@`,
      'dg',
    ),
    accept: (value) => !isPlaceholder(value),
  },
  {
    name: 'url_query_credential',
    hint: /[?&](?:pass|pwd|token|access|refresh|id_|auth|api|secret|client|sig|x-amz|x-goog)/i,
    pattern: new RegExp(
      '[?&](?:password|passwd|pwd|token|access_token|refresh_token|id_token|auth_token|api_key|apikey|api-key|' +
        `secret|client_secret|sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature)=${notYetRedacted}` +
        `(?<value>[^&#\\s"'<>]+)`,
      'dgi',
    ),
    accept: (value) => !isPlaceholder(value),
  },
  {
    name: 'bearer_token',
    hint: /bearer/i,
    pattern: new RegExp(
      `(?<![A-Za-z0-9])[Bb][Ee][Aa][Rr][Ee][Rr](?:[ \\t]+|%20)${notYetRedacted}(?<value>[A-Za-z0-9\\-._~+/]+=*)`,
      'dg',
    ),
    accept: acceptBearer,
  },
  {
    name: 'basic_auth',
    hint: /basic/i,
    pattern: new RegExp(
      `(?<![A-Za-z0-9])[Bb][Aa][Ss][Ii][Cc](?:[ \\t]+|%20)${notYetRedacted}(?<value>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])`,
      'dg',
    ),
    accept: acceptBasic,
  },
  {
    name: 'jwt',
    hint: /eyJ/,
    pattern: token('eyJ[A-Za-z0-9_-]{4,}\\.eyJ[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]*'),
  },
  { name: 'anthropic_key', hint: /sk-ant-/, pattern: token('sk-ant-[A-Za-z0-9_-]{20,}') },
  { name: 'openai_key', hint: /sk-/, pattern: token('sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}') },
  { name: 'aws_access_key_id', hint: /AKIA|ASIA/, pattern: token('(?:AKIA|ASIA)[A-Z0-9]{16}') },
  {
    name: 'github_token',
    hint: /gh[pousr]_|github_pat_/,
    pattern: token('(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})'),
  },
  { name: 'gitlab_token', hint: /glpat-/, pattern: token('glpat-[A-Za-z0-9_-]{20,}') },
  { name: 'slack_token', hint: /xox[abprs]-/, pattern: token('xox[abprs]-[A-Za-z0-9-]{10,}') },
  {
    name: 'slack_webhook',
    hint: /hooks\.slack\.com/,
    pattern: /hooks\.slack\.com\/services\/(?<value>T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]+)/dg,
  },
  { name: 'google_api_key', hint: /AIza/, pattern: token('AIza[0-9A-Za-z_-]{35}') },
  { name: 'google_oauth_token', hint: /ya29\./, pattern: token('ya29\\.[0-9A-Za-z_-]{20,}') },
  { name: 'stripe_key', hint: /_(?:live|test)_/, pattern: token('(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}') },
  { name: 'hugging_face_token', hint: /hf_/, pattern: token('hf_[A-Za-z0-9]{30,}') },
  { name: 'npm_token', hint: /npm_/, pattern: token('npm_[A-Za-z0-9]{36}') },
  { name: 'sendgrid_key', hint: /SG\./, pattern: token('SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}') },
  { name: 'groq_key', hint: /gsk_/, pattern: token('gsk_[A-Za-z0-9]{40,}') },
  { name: 'xai_key', hint: /xai-/, pattern: token('xai-[A-Za-z0-9]{40,}') },
];

/**
 * The words a hint matches, `[?&](?:pass|pwd)` → `?pass`, `?pwd`, `&pass`, `&pwd`: a hint is
 * characters, escaped characters, classes of single characters and non-capturing groups of
 * alternatives, nothing repeated, so it matches a finite set of words. Anything else throws.
 */
export function wordsOfHint(source: string): string[] {
  let at = 0;
  const alternatives = (): string[] => {
    const words = sequence();
    while (source[at] === '|') {
      at += 1;
      words.push(...sequence());
    }
    return words;
  };
  const sequence = (): string[] => {
    let words = [''];
    while (at < source.length && source[at] !== '|' && source[at] !== ')') {
      const choices = atom();
      if (/^[*+?{]/.test(source.slice(at))) throw new Error(`a hint repeats nothing: ${source}`);
      words = words.flatMap((word) => choices.map((choice) => word + choice));
    }
    return words;
  };
  const atom = (): string[] => {
    const char = source[at]!;
    if (char === '\\') {
      const escaped = source[at + 1] ?? '';
      if (!/^[^A-Za-z0-9]$/.test(escaped)) throw new Error(`a hint escapes punctuation only: ${source}`);
      at += 2;
      return [escaped];
    }
    if (char === '[') {
      const end = source.indexOf(']', at + 1);
      const members = source.slice(at + 1, end);
      if (end === -1 || /[-\\^]/.test(members)) throw new Error(`a hint's class lists characters: ${source}`);
      at = end + 1;
      return [...members];
    }
    if (char === '(') {
      if (!source.startsWith('(?:', at)) throw new Error(`a hint's groups are (?:…): ${source}`);
      at += 3;
      const inner = alternatives();
      if (source[at] !== ')') throw new Error(`a hint's group is not closed: ${source}`);
      at += 1;
      return inner;
    }
    if ('.^$'.includes(char)) throw new Error(`a hint's characters are literal: ${source}`);
    at += 1;
    return [char];
  };
  const words = alternatives();
  if (at < source.length) throw new Error(`a hint closes a group it did not open: ${source}`);
  return words;
}

const detectorHints = credentialDetectors.map(({ hint }) => wordsOfHint(hint.source));
const hintWords = new WordAutomaton(
  detectorHints.flat(),
  detectorHints.flatMap((words, detector) => words.map(() => detector)),
);

/**
 * The detectors whose hint could match the text, one bit a detector (`1 << its index` in
 * credentialDetectors): one pass over text that (almost always) has no credential, for every word
 * of every hint, letters in any case (a superset of what the hints find, since some hints match
 * one case only). V8's regex engine was the largest cost of normalizing a span here; the
 * automaton reads the text at about 1.5 times its speed (word-automaton.ts). A text with a hint
 * word in it (a span named `okey-dokey`, with `key`) then has only those detectors' hints tested
 * rather than all 23: over telemetrygen's span names and attribute values, redactText took 110-130
 * ns a text against 330.
 */
export function hintedDetectors(text: string): number {
  return hintWords.groupsIn(text);
}
