// Every action a document's history records, and every event kind, has its words in Spanish and
// English, and no two read the same. appendHistory takes only an action of that list: its type
// (HistoryAction) makes the compiler refuse a call with another, and a value cast past the type is
// refused when the entry is written.
import type { Transaction } from 'kysely';
import { describe, expect, it } from 'vitest';
import { EVENT_KINDS } from '../../src/domain/events/event-types.js';
import { eventLabel } from '../../src/domain/events/event-labels.js';
import { appendHistory } from '../../src/domain/history/append-history.js';
import { HISTORY_ACTIONS, type HistoryAction, historyLabels } from '../../src/domain/history/history-labels.js';
import type { Database } from '../../src/store/schema.js';

describe('history and event words', () => {
  it('every action of the history has a label in Spanish and in English, and no two read the same', () => {
    // The actions of signing, rejecting, the universal rendition and NOM-151 stamps among them.
    expect(HISTORY_ACTIONS).toEqual(
      expect.arrayContaining(['signed', 'rejected', 'universal_signed', 'nom151_stamped', 'expired', 'cancelled']),
    );
    for (const lang of ['es', 'en'] as const) {
      const l = historyLabels(lang);
      expect(HISTORY_ACTIONS.filter((a) => l.action(a) === a || !l.action(a).trim())).toEqual([]);
      // Two actions reading the same could not be told apart.
      expect(new Set(HISTORY_ACTIONS.map((a) => l.action(a))).size).toBe(HISTORY_ACTIONS.length);
    }
  });

  it('appendHistory refuses an action without words, cast past its type, before writing anything', async () => {
    // No database: the check comes first, so a transaction that is never used is enough.
    const trx = {} as Transaction<Database>;
    const entry = { documentId: '1', at: new Date(0), action: 'made_up' as HistoryAction, actor: 'system' };
    await expect(appendHistory(trx, entry)).rejects.toThrow('appendHistory: action "made_up" has no words in history-labels.ts');
  });

  it('every kind of actor appendHistory accepts is said in words in both languages', () => {
    for (const lang of ['es', 'en'] as const) {
      const l = historyLabels(lang);
      // A signer's id stands only when the document no longer names that signer (the panel and the PDF name them).
      expect(['account', 'system', 'public'].filter((a) => l.actor(a) === a || !l.actor(a).trim())).toEqual([]);
    }
    expect(historyLabels('en').actor('public')).toBe('Someone with the document link');
    expect(historyLabels('es').actor('public')).toBe('Alguien con el enlace del documento');
  });

  it('every event kind has a label in Spanish and in English', () => {
    for (const lang of ['es', 'en'] as const) {
      const words = EVENT_KINDS.map((k) => eventLabel(k, lang));
      expect(EVENT_KINDS.filter((k, i) => words[i] === k || !words[i].trim())).toEqual([]);
      expect(new Set(words).size).toBe(EVENT_KINDS.length);
    }
    expect(eventLabel('universal_signed', 'en')).toBe('Universal rendition signed');
    expect(eventLabel('universal_signed', 'es')).toBe('Versión universal firmada');
  });

  it('an action or event kind the labels do not know is shown by its identifier, never dropped', () => {
    expect(historyLabels('en').action('some_future_action')).toBe('some_future_action');
    expect(eventLabel('some_future_event', 'es')).toBe('some_future_event');
  });
});
