// Hears the changes other processes make to what this process keeps in memory. The writing
// transaction announces each change on channel sello_changes (a trigger, migration 0035); NOTIFY
// is delivered at commit, so a change is never heard before it can be read, and never heard when
// it was rolled back. One connection of its own per process, outside the pool (a pooled
// connection would stop listening when returned). Announcements sent while that connection is
// down are lost, so every (re)connection is followed by `recheck`: the caller compares what it
// keeps with what is stored, which is also what closes the gap between loading at start and the
// first LISTEN.
import pg from 'pg';

export const CHANGES_CHANNEL = 'sello_changes';

export interface ChangeListenerOptions {
  connectionString: string;
  /** An announcement: its payload names what changed (`pki_material`). */
  onChange: (what: string) => void;
  /** After each (re)connection: compare what is kept with what is stored. */
  recheck: () => void;
  /** Told when the connection fails or is lost (it is opened again after `retryMs`). */
  onError?: (err: unknown) => void;
  retryMs?: number;
}

export interface ChangeListener {
  /** Resolves once the first connection listens (or failed; it is then retried). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

export function listenForChanges(opts: ChangeListenerOptions): ChangeListener {
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: opts.connectionString });
    client = c;
    let lost = false;
    const onLost = (err?: unknown) => {
      if (lost) {
        return;
      }
      lost = true;
      if (err) {
        opts.onError?.(err);
      }
      void c.end().catch(() => {});
      if (!stopped) {
        retry = setTimeout(() => void connect(), opts.retryMs ?? 1000);
        retry.unref();
      }
    };
    c.on('error', onLost);
    c.on('end', () => onLost(stopped ? undefined : new Error('the connection listening for changes ended')));
    c.on('notification', (msg) => {
      if (msg.channel === CHANGES_CHANNEL) {
        opts.onChange(msg.payload ?? '');
      }
    });
    try {
      await c.connect();
      await c.query(`listen ${CHANGES_CHANNEL}`);
    } catch (err) {
      onLost(err);
      return;
    }
    opts.recheck();
  };

  const ready = connect();
  return {
    ready,
    stop: async () => {
      stopped = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
