// Wiring of the real dependencies from a Config: database (embedded or external), migrations,
// master key, blob store, URL guard. main.ts uses it for every command; tests build Deps directly.
import { readFile } from 'node:fs/promises';
import type { Config } from './config.js';
import { systemClock, type Deps } from './domain/deps.js';
import { loadPki } from './domain/pki/load-pki.js';
import { createPkiResponder } from './domain/pki/pki-responses.js';
import { guardedFetch } from './net/url-guard.js';
import { SIGNER_KEY_REFILL_DELAY_MS, SignerKeyPools, pemCertificates } from './pki/index.js';
import { createSecretBox } from './pki/secret-box.js';
import { ImageJail } from './jail/image-jail.js';
import { PdfJail } from './jail/pdf-jail.js';
import { createTemplateEngines } from './render/index.js';
import { createSmtpTransport } from './notify/email-transport.js';
import { createMessageChannels } from './notify/channels.js';
import { openBlobStore } from './store/blob-store.js';
import { openDb, type DbHandle } from './store/db.js';
import { resolveMasterKey } from './store/master-key.js';
import { migrate } from './store/migrate.js';
import { sealMessageBodies } from './store/seal-message-bodies.js';
import { openDatabase, terminalProgress, type Progress } from './database.js';

export { openDatabase } from './database.js';

export interface Runtime {
  deps: Deps;
  connectionString: string;
  dbHandle: DbHandle;
  /** Closes the pool and stops the embedded database if this process started it. */
  close(): Promise<void>;
}

/**
 * Everything the service needs. `migrate: false` is for processes that must not change the schema
 * (the database must already be migrated: the PKI is loaded from it). `signing: true` for processes
 * that answer signer pages: their pool of signer keys starts filling at once (elsewhere a key, if
 * ever needed, is generated on demand).
 */
export async function startRuntime(config: Config, opts: { migrate: boolean; signing?: boolean; progress?: Progress }): Promise<Runtime> {
  const progress = opts.progress ?? terminalProgress;
  const database = await openDatabase(config, progress);
  const connectionString = database.connectionString;
  try {
    if (opts.migrate) {
      progress('Migrating the database…');
      await migrate(connectionString);
    }
    const dbHandle = openDb(connectionString, 20);
    const masterKey = await resolveMasterKey(config.masterKey, config.dataDir);
    const secrets = createSecretBox(masterKey);
    // Message bodies written before they were sealed at rest, still waiting (seal-message-bodies.ts).
    await sealMessageBodies(dbHandle.db, secrets);
    const pki = await loadPki({ db: dbHandle.db, secrets, clock: systemClock, progress }, config.pki, config.publicUrl);
    // A fresh RSA-2048 pair per signature costs 150–200 ms at the median (over 500 ms at p99) on a
    // small server, more than the rest of the signature: generated ahead of time on the thread pool,
    // it is off the signer's wait (pki/key-pool.ts; docs/performance.md, scenario F). One pool per
    // key type: accounts choose theirs, the operator's is the default.
    const signerKeys = new SignerKeyPools({
      defaultAlgorithm: config.pki.signerKey,
      size: config.pki.signerKeyPool,
      parallel: config.pki.signerKeyThreads,
      refillDelayMs: SIGNER_KEY_REFILL_DELAY_MS,
      onError: (err, algorithm) =>
        console.warn(`pki: generating a ${algorithm} signer key ahead of time failed: ${(err as Error).message}`),
    });
    const blobStore = await openBlobStore(config);
    const pdfJail = new PdfJail(config.pdfJail);
    const imageJail = new ImageJail(config.identity.checks);
    const deps: Deps = {
      config,
      db: dbHandle.db,
      blobs: blobStore.blobs,
      secrets,
      clock: systemClock,
      fetchUrl: guardedFetch,
      pdfJail,
      imageJail,
      templates: createTemplateEngines(config.render, pdfJail),
      pki: createPkiResponder({ db: dbHandle.db, clock: systemClock, secrets }, pki, config.pki.tsaPolicyOid, {
        organization: config.pki.organization,
        baseUrl: config.publicUrl,
      }),
      signerKeys,
      channels: createMessageChannels(config.channels, () => config.publicUrl),
      mail: config.smtpUrl ? { transport: createSmtpTransport(config.smtpUrl), from: config.mailFrom } : undefined,
      externalTsa:
        config.tsaUrl && config.tsaTrustPath
          ? { url: config.tsaUrl, trustedRootsDer: pemCertificates(await readFile(config.tsaTrustPath, 'utf8')) }
          : undefined,
      nom151Psc: config.nom151
        ? {
            url: config.nom151.url,
            user: config.nom151.user,
            password: config.nom151.password,
            policyOid: config.nom151.policyOid,
            tsaName: config.nom151.tsaName,
            trustedRootsDer: await pscRoots(config.nom151.trustPath),
          }
        : undefined,
    };
    if (opts.signing) {
      signerKeys.start();
    }
    return {
      deps,
      connectionString,
      dbHandle,
      close: async () => {
        signerKeys.stop();
        await deps.templates.close();
        await deps.pdfJail.close();
        await deps.imageJail.close();
        deps.mail?.transport.close();
        blobStore.close();
        await dbHandle.close();
        await database.close();
      },
    };
  } catch (err) {
    await database.close();
    throw err;
  }
}

/** The PSC's roots; a file without one would make every stamp fail, so the start fails instead. */
async function pscRoots(path: string): Promise<Buffer[]> {
  const roots = pemCertificates(await readFile(path, 'utf8'));
  if (roots.length === 0) {
    throw new Error(`SELLO_NOM151_TRUST_PEM: no PEM certificate in ${path}`);
  }
  return roots;
}
