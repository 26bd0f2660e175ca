// The correction of one signer (DocumentActions.tsx): the form's name, authority and data, checked
// here with the service's own rule before anything is sent, and the new link when nobody else will
// take it to the signer.
import { type FormEvent, useState } from 'react';
import { type Authority, normalizeSignerData } from '../../../src/domain/documents/authorities.js';
import type { SignerUpdateResult } from '../../../src/schemas/workflows.js';
import { api, type DocumentPageData, type ListedDocument } from './api';
import type { Action } from './DocumentActions';
import { usePanelI18n } from './panel-i18n';

type Signer = ListedDocument['signers'][number];

/** What kind of identifier an authority's data is, for its input, hint and error. */
const dataKind = (a: Authority): 'email' | 'rfc' | 'phone' =>
  a === 'EMAIL' || a === 'EMAIL_LINK' || a === 'CERT' || a === 'CSC' ? 'email' : a === 'SAT' ? 'rfc' : 'phone';

/**
 * Whether the service itself takes a corrected signer's new link to them: the flow it runs invites
 * them (now, or at their turn in an ordered flow) by phone, or by email when it has an address. A
 * SAT signer without an email, or a document whose links the client hands out, gets nothing: the
 * old link is dead, so the page must show the new one.
 */
const serviceDelivers = (data: DocumentPageData, r: SignerUpdateResult) =>
  data.workflow.in_set ||
  (data.workflow.started && (r.signer.authority === 'SMS' || r.signer.authority === 'WHATSAPP' || r.signer.email !== null));

/** The fields that changed, as the correction sends them. */
function changes(signer: Signer, name: string, authority: Authority, data: string): Record<string, string> {
  const body: Record<string, string> = {};
  if (name.trim() !== (signer.name ?? '')) {
    body.name = name.trim();
  }
  if (authority !== signer.authority) {
    // A new authority needs its data, even when the text is the same (EMAIL_LINK to EMAIL).
    body.authority = authority;
    body.data = data;
  } else if (data !== signer.data) {
    body.data = data;
  }
  return body;
}

export function useSignerCorrection(data: DocumentPageData, signer: Signer, action: Action) {
  const { t } = usePanelI18n();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(signer.name ?? '');
  const [authority, setAuthority] = useState(signer.authority as Authority);
  const [value, setValue] = useState(signer.data);
  // Whether the data broke its authority's rule at the last try; said in the page's language.
  const [dataWrong, setDataWrong] = useState(false);
  // The new link of the last correction, when nobody else will take it to the signer.
  const [newLink, setNewLink] = useState<string | null>(null);
  const who = signer.name ?? signer.data;
  const kind = dataKind(authority);

  const chooseAuthority = (next: Authority) => {
    setAuthority(next);
    // Another kind of identifier starts empty; back to the signer's own, the signer's own data.
    if (next === signer.authority) {
      setValue(signer.data);
    } else if (dataKind(next) !== kind) {
      setValue('');
    }
    setDataWrong(false);
  };

  const toggle = () => {
    if (!editing) {
      // The form opens on the signer as the page shows it now (after an earlier correction too).
      setName(signer.name ?? '');
      setAuthority(signer.authority as Authority);
      setValue(signer.data);
      setDataWrong(false);
    }
    setEditing(!editing);
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    // The service's own check of the data for the authority, so the person sees it at the field;
    // the server checks again with the same function.
    const checked = normalizeSignerData(authority, value);
    if (!checked.ok) {
      setDataWrong(true);
      return;
    }
    setDataWrong(false);
    const body = changes(signer, name, authority, checked.value);
    let answer: SignerUpdateResult | undefined;
    const ok = await action.run(
      async () => {
        answer = await api.updateSigner(data.document.document_ticket, signer.signer_id, body);
      },
      t.signerCorrected(who),
      t.confirmCorrect(who),
    );
    if (ok) {
      setEditing(false);
      setNewLink(answer && !serviceDelivers(data, answer) ? answer.signer.signer_url : null);
    }
  };

  return {
    editing,
    toggle,
    name,
    setName,
    authority,
    chooseAuthority,
    value,
    /** Typing clears the last try's error. */
    setValue: (v: string) => {
      setValue(v);
      setDataWrong(false);
    },
    kind,
    dataWrong,
    newLink,
    save,
  };
}

export type SignerCorrection = ReturnType<typeof useSignerCorrection>;
