import {
  type ClickHouseClient,
  type ClickHouseReader,
  isClickHouseUnreachable,
} from '../platform/clickhouse.ts';
import { DependencyAway } from './errors.ts';

/**
 * The API's reads of the read models in ClickHouse (traces, analytics, the request log), bounded
 * by the dependency watch rather than by a deadline: a read is given up, and answered 503 with
 * Retry-After, as soon as the watch sees ClickHouse unreachable (within about 1.5 s of a hang,
 * platform/dependency-watch.ts), while a long analytics query on a live server runs to its end.
 * A deadline short enough for a hang would cut those.
 */
export class ClickHouseReads {
  constructor(
    private readonly clickhouse: ClickHouseClient,
    /** Aborted when ClickHouse is next seen unreachable (DependencyWatch.awaySignal). */
    private readonly awaySignal: () => AbortSignal,
  ) {}

  /**
   * Runs `work` with a reader whose queries end when ClickHouse is seen away, or whose server
   * refused them: then 503 `DependencyAway`.
   */
  async read<T>(work: (clickhouse: ClickHouseReader) => Promise<T>): Promise<T> {
    const away = this.awaySignal();
    if (away.aborted) throw new DependencyAway('clickhouse');
    // Listened to before the queries start, so it is this refusal that answers, not the client's abort.
    let gone: () => void = () => undefined;
    const refused = new Promise<never>((_resolve, reject) => {
      gone = () => reject(new DependencyAway('clickhouse'));
      away.addEventListener('abort', gone, { once: true });
    });
    const reader: ClickHouseReader = {
      query: (params) => this.clickhouse.query({ ...params, abort_signal: away }),
    };
    const working = work(reader);
    // Its failure once refused answers (the aborted request) has no one left to hear it.
    working.catch(() => undefined);
    try {
      return await Promise.race([working, refused]);
    } catch (error) {
      if (away.aborted || isClickHouseUnreachable(error)) throw new DependencyAway('clickhouse');
      throw error;
    } finally {
      away.removeEventListener('abort', gone);
    }
  }
}
