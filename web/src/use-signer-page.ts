// What the document page and the set page keep alike: their data and its reloads (use-page-data.ts),
// the two actions and their announcements (use-signing-actions.ts), the page's language, the pad's
// signature and the consent, the version of the signed PDFs to show, and the verified code.
import { useState } from 'react';
import type { Lang, Signature } from './api';
import { type PageI18n, usePageI18n } from './components/PageShell';
import type { Dict } from './i18n';
import { usePageData } from './use-page-data';
import { useSigningActions } from './use-signing-actions';

/** What both pages' data say of the signer and of the page's language. */
export interface SignerPageInfo {
  signer: { verified: boolean };
  language: Lang | null;
  default_language: Lang;
}

export function useSignerPage<T extends SignerPageInfo>(fetch: () => Promise<T>, token: string, dict: (lang: Lang) => Dict) {
  const data = usePageData(fetch, token);
  const actions = useSigningActions(data.load);
  const [signature, setSignature] = useState<Signature | null>(null);
  const [consent, setConsent] = useState(false);
  const [version, setVersion] = useState(0);
  const i18n = usePageI18n(data.info?.language, dict, data.info?.default_language);

  /** The one-time code was accepted: the pad comes, and screen readers hear so. */
  const codeVerified = () => {
    actions.setError(null);
    actions.setStatus(i18n.t.codeVerified);
    data.setInfo((prev) => prev && { ...prev, signer: { ...prev.signer, verified: true } });
  };

  return {
    ...data,
    ...actions,
    i18n,
    t: i18n.t,
    signature,
    setSignature,
    consent,
    setConsent,
    version,
    /** The signed PDFs changed: the viewers fetch them again. */
    nextVersion: () => setVersion((v) => v + 1),
    codeVerified,
  };
}

/** The part of a signer page's state its shared components use (SignerPage.tsx). */
export type SignerPageState = Omit<ReturnType<typeof useSignerPage<SignerPageInfo>>, 'info' | 'setInfo'> & { i18n: PageI18n };
