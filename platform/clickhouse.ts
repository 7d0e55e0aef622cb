import {
  type ClickHouseClient,
  createClient,
  type ErrorLogParams,
  type Logger,
  type WarnLogParams,
} from '@clickhouse/client';
import { config } from './config.ts';
import { logger } from './logger.ts';
import { isUnreachableSocketCode } from './socket-errors.ts';

export type { ClickHouseClient };

/** What a reader of the read models uses of a client: its queries. */
export type ClickHouseReader = Pick<ClickHouseClient, 'query'>;

/** Whether a query failed because the server could not be reached, not because of the query. */
export function isClickHouseUnreachable(error: unknown): boolean {
  return error instanceof Error && isUnreachableSocketCode((error as { code?: unknown }).code);
}

export function createClickHouse(
  options: { url?: string; database?: string; connections?: number } = {},
): ClickHouseClient {
  const url = options.url ?? config().clickhouse.url;
  return createClient({
    url,
    database: options.database ?? config().clickhouse.database,
    // Inserts are gzipped on their way to a ClickHouse over the network (ClickHouse Cloud), not to
    // one on this machine: there gzip only spends CPU at both ends (about 45 ms of the consumers'
    // CPU per 9 MB insert of 7,700 spans, for bytes that never leave the host).
    compression: { request: !isLoopback(url), response: false },
    request_timeout: 60_000,
    max_open_connections: options.connections ?? 10,
    log: { LoggerClass: ClickHouseLogLines },
    clickhouse_settings: {
      // 64-bit integers as JSON strings, which the readers parse exactly (BigInt, Number). 18.16
      // quotes them by default; 25.8 and later print bare numbers, which JSON.parse rounds to a
      // double: a span's start in nanoseconds came back up to 128 ns off, and trace cursors with it.
      output_format_json_quote_64bit_integers: 1,
    },
  });
}

/**
 * The client's own messages (warnings and errors, its default level) as the process's JSON log
 * lines: by default it writes them to stderr as plain text. Its errors are warnings here, since
 * each also reaches the caller, which decides what it means (a 503, a retried batch).
 */
class ClickHouseLogLines implements Logger {
  trace(): void {}
  debug(): void {}
  info(): void {}
  warn({ module, message, err }: WarnLogParams): void {
    logger.warn({ err, module }, `clickhouse: ${message}`);
  }
  error({ module, message, err }: ErrorLogParams): void {
    logger.warn({ err, module }, `clickhouse: ${message}`);
  }
}

function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || host.startsWith('127.');
}

// ClickHouse 18.16 has no query parameters, so every value reaches SQL through this one
// escaping helper (DESIGN.md, "Storage"). It is fuzz-tested against the real server.

/** A piece of SQL that is already safe: produced by `sql`, `identifier` or `rawSql`. */
export class SqlFragment {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type SqlValue = string | number | bigint | boolean | Date | null | SqlFragment | readonly SqlValue[];

const escapes: Record<string, string> = {
  '\\': '\\\\',
  "'": "\\'",
  '\0': '\\0',
  '\b': '\\b',
  '\f': '\\f',
  '\r': '\\r',
  '\n': '\\n',
  '\t': '\\t',
};

export function quoteString(value: string): string {
  return `'${value.replace(/[\\'\0\b\f\r\n\t]/g, (character) => escapes[character] ?? character)}'`;
}

export function literal(value: SqlValue): string {
  if (value instanceof SqlFragment) return value.text;
  if (value === null) return 'NULL';
  if (typeof value === 'string') return quoteString(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`not a finite number: ${value}`);
    return String(value);
  }
  if (value instanceof Date) return String(Math.floor(value.getTime() / 1000));
  return `[${value.map(literal).join(', ')}]`;
}

/** Tagged template: `sql\`SELECT … WHERE org_id = ${orgId}\`` with every value escaped. */
export function sql(strings: TemplateStringsArray, ...values: SqlValue[]): SqlFragment {
  let text = strings[0] ?? '';
  values.forEach((value, index) => {
    text += literal(value) + (strings[index + 1] ?? '');
  });
  return new SqlFragment(text);
}

/** A table or column name; only plain identifiers are allowed, so nothing needs quoting. */
export function identifier(name: string): SqlFragment {
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/.test(name)) {
    throw new TypeError(`not a plain identifier: ${name}`);
  }
  return new SqlFragment(name);
}

export function joinSql(fragments: SqlFragment[], separator: string): SqlFragment {
  return new SqlFragment(fragments.map((fragment) => fragment.text).join(separator));
}

// Trace and span ids are stored as their bytes (infra/migrations/clickhouse/0008): a query gives
// them back as the lower-case hex the API and the events use, and looks one up by its bytes.

/** A stored id column as lower-case hex; '' stays ''. */
export function hexId(column: string): SqlFragment {
  return sql`lower(hex(${identifier(column)}))`;
}

/** A hex id as the bytes it is stored as; hex that is not an id matches no stored id. */
export function idBytes(hexText: string): SqlFragment {
  return sql`unhex(${hexText})`;
}
