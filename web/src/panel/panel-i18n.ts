// The panel's language and times: every string it shows, in Spanish and English (the words of each
// area live in words/*.ts); the browser's language first, then the person's choice on the
// language switch (kept for the next visit). Times are shown in the account's time zone, the one
// the history PDF uses and an expiration date ends a day in, so a person whose computer is
// elsewhere sees the same time as the PDF and the API's rules.
import { createContext, useContext } from 'react';
import type { Lang } from '../api';
import { accountEn, accountEs } from './words/account';
import { brandEn, brandEs } from './words/brand';
import { bulkEn, bulkEs } from './words/bulk';
import { commonEn, commonEs } from './words/common';
import { documentsEn, documentsEs } from './words/documents';
import { prepareEn, prepareEs } from './words/prepare';
import { webhooksEn, webhooksEs } from './words/webhooks';

// One dictionary per language, assembled from the words of each area (words/*.ts). Each area's
// English is typed by its Spanish, so neither language can miss a string; a key belongs to one
// area only (a second would silently win the spread: test/unit/panel-words.test.ts).
const es = { ...commonEs, ...documentsEs, ...webhooksEs, ...accountEs, ...brandEs, ...bulkEs, ...prepareEs };

export type PanelDict = typeof es;

const en: PanelDict = { ...commonEn, ...documentsEn, ...webhooksEn, ...accountEn, ...brandEn, ...bulkEn, ...prepareEn };

export const panelDictionaries: Record<Lang, PanelDict> = { es, en };

export interface PanelWords {
  lang: Lang;
  t: PanelDict;
  /** The account's IANA time zone; undefined before the session is known (the browser's then). */
  zone: string | undefined;
  /** A time in the account's time zone, in the panel's language. */
  when: (iso: string) => string;
}

export function panelWords(lang: Lang, zone: string | undefined): PanelWords {
  return { lang, t: panelDictionaries[lang], zone, when: (iso) => formatDateTime(iso, lang, zone) };
}

export const PanelI18n = createContext<PanelWords>(panelWords('es', undefined));
export const usePanelI18n = () => useContext(PanelI18n);

export function formatDateTime(iso: string, lang: Lang, timeZone?: string): string {
  return new Intl.DateTimeFormat(lang === 'en' ? 'en-GB' : 'es-ES', { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(
    new Date(iso),
  );
}

/** A time in `timeZone`, with the zone named: "18 Dec 2026, 23:59 (Europe/Madrid)". */
export function formatDateTimeInZone(iso: string, lang: Lang, timeZone: string): string {
  return `${formatDateTime(iso, lang, timeZone)} (${timeZone})`;
}

export function formatDay(iso: string, lang: Lang): string {
  return new Intl.DateTimeFormat(lang === 'en' ? 'en-GB' : 'es-ES', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(iso));
}
