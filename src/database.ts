// The database alone (embedded or external), and the store commands of the CLI need: the database,
// its migrations and the master key, without the PDF, PKI, template and HTTP modules the service
// loads (seconds that `sello account list` should not wait for).
import type { Config } from './config.js';
import { systemClock, type Clock } from './domain/deps.js';
import { createSecretBox, type SecretBox } from './pki/secret-box.js';
import { openDb, type Db } from './store/db.js';
import { startEmbeddedPostgres } from './store/embedded-postgres.js';
import { resolveMasterKey } from './store/master-key.js';
import { migrate } from './store/migrate.js';

/** Hears what a start is doing, one line a step, before the step (a step may take seconds). */
export type Progress = (message: string) => void;

/**
 * The commands' progress (account, mail, auth…): on a terminal only, on stderr, so what they print
 * on stdout (JSON with --json) stays machine-readable. `sello serve` prints its own on stdout.
 */
export const terminalProgress: Progress = (message) => {
  if (process.stderr.isTTY) {
    console.error(message);
  }
};

/** The database alone (embedded or external), for commands that need nothing else. */
export async function openDatabase(
  config: Config,
  progress: Progress = terminalProgress,
): Promise<{ connectionString: string; close(): Promise<void> }> {
  const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres(config.dataDir, config.embeddedPgPort, progress);
  return { connectionString: config.databaseUrl ?? embedded!.connectionString, close: async () => embedded?.stop() };
}

export interface Store {
  deps: { config: Config; db: Db; secrets: SecretBox; clock: Clock };
  close(): Promise<void>;
}

/** The migrated database and the master key: what account, mail and auth commands use. */
export async function openStore(config: Config): Promise<Store> {
  const database = await openDatabase(config);
  try {
    await migrate(database.connectionString);
    const handle = openDb(database.connectionString, 2);
    const secrets = createSecretBox(await resolveMasterKey(config.masterKey, config.dataDir));
    return {
      deps: { config, db: handle.db, secrets, clock: systemClock },
      close: async () => {
        await handle.close();
        await database.close();
      },
    };
  } catch (err) {
    await database.close();
    throw err;
  }
}
