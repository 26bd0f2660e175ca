// The identify page's form (IdentifyPage.tsx): the box the signer chose, the address they typed,
// what is wrong with them, and the request for a personal link. The server answers the same
// whether or not the address matched, so the outcome only names the box.
import { useRef, useState } from 'react';
import type { ApiError } from './api';
import { type DocumentPage, requestLink } from './document-api';
import type { Dict } from './i18n';
import { asApiError } from './use-page-data';

export type Box = DocumentPage['boxes'][number];

export function useLinkRequest(ticket: string, info: DocumentPage | null, ti: Dict['identify'], load: () => Promise<void>) {
  const [error, setError] = useState<ApiError | null>(null);
  const [chosen, setChosen] = useState<string | null>(null);
  const [email, setEmail] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [sentFor, setSentFor] = useState<{ label: string; byPhone: boolean } | null>(null);
  const emailRef = useRef<HTMLInputElement>(null);

  const chosenBox = info?.boxes.find((b) => b.sticker_id === chosen);
  /** The chosen box's signer is reached by phone: the field asks for a number. */
  const byPhone = chosenBox?.signer.link_by === 'phone';

  const choose = (id: string) => {
    setChosen(id);
    setFieldError(null);
  };
  /** Chosen on the document: the form is where the next step is. */
  const chooseOnPage = (id: string) => {
    choose(id);
    emailRef.current?.focus();
  };

  const submit = async () => {
    if (!chosenBox) {
      setFieldError(ti.chooseFirst);
      return;
    }
    if (email.trim() === '') {
      setFieldError(byPhone ? ti.phoneRequired : ti.emailRequired);
      emailRef.current?.focus();
      return;
    }
    setFieldError(null);
    setError(null);
    setBusy(true);
    try {
      await requestLink(ticket, chosenBox.sticker_id, email.trim());
      setSentFor({ label: chosenBox.signer.label, byPhone });
    } catch (err) {
      const e = asApiError(err);
      setError(e);
      // The document or a signer changed under the page: show what it is now.
      if (e.status === 409 || e.status === 404) {
        void load();
      }
    } finally {
      setBusy(false);
    }
  };

  return {
    error,
    setError,
    chosen,
    choose,
    chooseOnPage,
    email,
    setEmail,
    fieldError,
    busy,
    byPhone,
    sentFor,
    again: () => setSentFor(null),
    emailRef,
    submit,
  };
}

export type LinkRequest = ReturnType<typeof useLinkRequest>;
