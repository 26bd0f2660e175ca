// The counts behind the rate limits, shared by every process of the service through PostgreSQL
// (http/rate-limit.ts says why they are counted this way and what slack that leaves).
import { randomUUID } from 'node:crypto';
import type { Db } from '../../store/db.js';
import { exchangeCounts, type CountedKey } from '../../store/rate-counts-repo.js';

/** How often each process exchanges its counts with the database, in milliseconds. */
export const FLUSH_MS = 1000;

interface Window {
  key: string;
  windowEnd: number;
  /** This process's count in the window. */
  own: number;
  /** Of `own`, what the database has not been told yet. */
  unsent: number;
  /** The other processes' count, as of the last exchange. */
  others: number;
}

/** Counts of keys in fixed windows, shared with the other processes through the database. */
export class SharedRequestCounts {
  /** This process's rows in the database. */
  readonly node = randomUUID();
  private readonly windows = new Map<string, Window>();
  private timer: NodeJS.Timeout | undefined;
  private exchanging: Promise<void> | undefined;

  constructor(
    private readonly opts: {
      db: Db;
      nowMs: () => number;
      flushMs?: number;
      /** Told when an exchange fails (the counts are kept for the next one). */
      onError?: (err: unknown) => void;
      /** Told after each exchange that succeeded. */
      onExchange?: () => void;
    },
  ) {}

  /** Counts one request of `key`: the cluster's count in its window, and the milliseconds left in it. */
  hit(key: string, windowMs: number): { count: number; msLeft: number } {
    const now = this.opts.nowMs();
    const windowEnd = now - (now % windowMs) + windowMs;
    const id = `${windowEnd}\n${key}`;
    let w = this.windows.get(id);
    if (!w) {
      w = { key, windowEnd, own: 0, unsent: 0, others: 0 };
      this.windows.set(id, w);
    }
    w.own++;
    w.unsent++;
    return { count: w.own + w.others, msLeft: windowEnd - now };
  }

  /** Exchanges counts with the database now; one exchange at a time. */
  flush(): Promise<void> {
    this.exchanging ??= this.exchange().finally(() => {
      this.exchanging = undefined;
    });
    return this.exchanging;
  }

  /** Exchanges every FLUSH_MS until stop(). */
  start(): void {
    if (!this.timer) {
      this.timer = setInterval(() => {
        void this.flush();
      }, this.opts.flushMs ?? FLUSH_MS);
      this.timer.unref();
    }
  }

  /** Stops the exchanges after a last one, so that a stopping process's counts are not lost. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private async exchange(): Promise<void> {
    const now = this.opts.nowMs();
    const sent: { w: Window; added: number }[] = [];
    const keys: CountedKey[] = [];
    for (const [id, w] of this.windows) {
      if (w.windowEnd <= now) {
        this.windows.delete(id); // an ended window counts for nothing more
        continue;
      }
      sent.push({ w, added: w.unsent });
      keys.push({ key: w.key, windowEnd: w.windowEnd, added: w.unsent });
      w.unsent = 0;
    }
    if (keys.length === 0) {
      return;
    }
    try {
      const others = new Map((await exchangeCounts(this.opts.db, this.node, keys, now)).map((r) => [`${r.windowEnd}\n${r.key}`, r.others]));
      for (const { w } of sent) {
        w.others = others.get(`${w.windowEnd}\n${w.key}`) ?? 0;
      }
      this.opts.onExchange?.();
    } catch (err) {
      for (const { w, added } of sent) {
        w.unsent += added;
      }
      this.opts.onError?.(err);
    }
  }
}
