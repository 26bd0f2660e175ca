// The document a person prepares in the panel, kept in this browser until it is sent: nothing reaches
// the service before Send, and a reload (or a closed tab) finds the draft where it was left. IndexedDB,
// not localStorage: the draft carries the PDF, and localStorage holds a few megabytes of strings at
// most. One draft per browser profile and origin; the prepare page and the bulk page read the same one.
import type { CreateDocumentInput } from '../../../src/schemas/documents.js';

/** The payload the draft would send: the create body of POST /developers/json, partly filled. For a
 * bulk run, a signer's name and data may hold placeholders such as `{{row.email}}`. */
export type DraftPayload = Partial<CreateDocumentInput> & Record<string, unknown>;

export interface PanelDraft {
  version: 1;
  payload: DraftPayload;
  /** What the editor needs to show the draft again and the API does not take (file name, step). */
  ui?: Record<string, unknown>;
  /** Epoch ms of the last save. */
  savedAt: number;
}

const DB_NAME = 'sello-panel';
const STORE = 'drafts';
const KEY = 'current';

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, 1);
    req.onupgradeneeded = () => {
      req.result.createObjectStore(STORE);
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('indexedDB.open failed'));
  });
}

async function run<T>(mode: IDBTransactionMode, act: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await open();
  try {
    return await new Promise<T>((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const req = act(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(req.result);
      tx.onerror = () => reject(tx.error ?? new Error('draft transaction failed'));
      tx.onabort = () => reject(tx.error ?? new Error('draft transaction aborted'));
    });
  } finally {
    db.close();
  }
}

/** The draft kept in this browser, or null. A draft of another version is ignored, not misread. */
export async function loadDraft(): Promise<PanelDraft | null> {
  const value = (await run('readonly', (s) => s.get(KEY))) as PanelDraft | undefined;
  return value && value.version === 1 ? value : null;
}

export async function saveDraft(payload: DraftPayload, ui?: Record<string, unknown>): Promise<PanelDraft> {
  const draft: PanelDraft = { version: 1, payload, ui, savedAt: Date.now() };
  await run('readwrite', (s) => s.put(draft, KEY));
  return draft;
}

/** After a successful send, or when the person discards the draft. */
export async function clearDraft(): Promise<void> {
  await run('readwrite', (s) => s.delete(KEY));
}
