// The prepare page's state: the draft read back from this browser on arrival, saved again after
// every change (draft-store.ts; one save at a time, in order, so the last change is the one kept),
// the errors shown at their fields, and Send, Send to many and Discard.
import { useEffect, useRef, useState } from 'react';
import type { CreatedDocument } from '../../../../src/schemas/documents.js';
import { api, PanelError } from '../api';
import { clearDraft, loadDraft, saveDraft } from '../draft-store';
import { usePanelI18n } from '../panel-i18n';
import { navigate } from '../router';
import { errorField, errorPlace, ids } from './field-errors';
import { emptyState, fromDraft, isEmpty, type PrepState, toPayload, toUi } from './state';

export type DraftStatus = 'none' | 'saving' | 'saved' | 'failed';

export function usePrepare() {
  const { t } = usePanelI18n();
  const [state, setState] = useState<PrepState | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [sent, setSent] = useState<{ created: CreatedDocument; names: string[] } | null>(null);
  const [status, setStatus] = useState<DraftStatus>('none');
  const [busy, setBusy] = useState(false);
  const [focusId, setFocusId] = useState<string | null>(null);
  /** The writes under way, awaited before Send, Send to many and Discard. */
  const saves = useRef<Promise<unknown>>(Promise.resolve());
  const writing = useRef(false);
  const waiting = useRef<PrepState | null>(null);
  const restored = useRef<PrepState | null>(null);

  useEffect(() => {
    let live = true;
    loadDraft().then(
      (d) => {
        if (live) {
          const s = d ? fromDraft(d) : emptyState();
          restored.current = s;
          setState(s);
          setStatus(d ? 'saved' : 'none');
        }
      },
      () => live && setState(emptyState()),
    );
    return () => {
      live = false;
    };
  }, []);

  // Every change is saved; the state read back from the draft is not written again. One write at a
  // time, and while one runs only the newest state waits: the draft carries the whole PDF, so
  // typing a name must not queue a copy of it per key.
  useEffect(() => {
    if (!state || state === restored.current) {
      return;
    }
    waiting.current = state;
    setStatus('saving');
    if (writing.current) {
      return;
    }
    writing.current = true;
    saves.current = (async () => {
      let last: PrepState | null = null;
      try {
        while (waiting.current) {
          last = waiting.current;
          waiting.current = null;
          await (isEmpty(last) ? clearDraft() : saveDraft(toPayload(last), toUi(last)));
        }
        setStatus(last && !isEmpty(last) ? 'saved' : 'none');
      } catch {
        waiting.current = null;
        setStatus('failed');
      } finally {
        writing.current = false;
      }
    })();
  }, [state]);

  // After a step changes or an error is placed, the control it concerns takes the focus.
  useEffect(() => {
    if (focusId) {
      const el = document.getElementById(focusId);
      if (el) {
        el.focus();
        setFocusId(null);
      }
    }
  });

  /** Applies a change; the error shown at `id` (the control changed) goes. */
  const update = (change: (s: PrepState) => PrepState, id?: string) => {
    setState((s) => (s ? change(s) : s));
    if (id) {
      setErrors((e) => {
        if (!(id in e)) {
          return e;
        }
        const { [id]: _gone, ...rest } = e;
        return rest;
      });
    }
  };

  const goTo = (step: number, focus?: string) => {
    update((s) => ({ ...s, step }));
    setFocusId(focus ?? `prepare-step-${step}`);
  };

  /** What Send needs before the service is asked: a document, a signer, a box per signer. */
  const missing = (s: PrepState): { step: number; id: string; message: string; focus?: string } | null => {
    if (s.source.kind === 'none' || (s.source.kind === 'pdf' ? !s.source.pdf : !s.source.template)) {
      return { step: 0, id: s.source.kind === 'template' ? ids.template : ids.source, message: t.needSource };
    }
    if (s.signers.length === 0) {
      return { step: 1, id: 'add-signer', message: t.needSigner };
    }
    for (const [i, signer] of s.signers.entries()) {
      if (!s.boxes.some((b) => b.signer === signer.key)) {
        return {
          step: 2,
          id: ids.signerBoxes(signer.key),
          message: t.needBox(signer.name.trim() || t.signerN(i + 1)),
          focus: `add-box-${signer.key}`,
        };
      }
    }
    return null;
  };

  const send = async () => {
    if (!state || busy) {
      return;
    }
    setError(null);
    const gap = missing(state);
    if (gap) {
      setErrors({ [gap.id]: gap.message });
      goTo(gap.step, gap.focus ?? gap.id);
      return;
    }
    setBusy(true);
    try {
      const created = await api.createDocument(toPayload(state));
      const names = state.signers.flatMap((sg, i) => state.boxes.filter((b) => b.signer === sg.key).map(() => sg.name || t.signerN(i + 1)));
      await saves.current;
      setSent({ created, names });
      setErrors({});
      setState(emptyState());
    } catch (err) {
      setError(err);
      if (err instanceof PanelError) {
        const place = errorPlace(errorField(err.details, err.message), state);
        if (place) {
          setErrors(place.id ? { [place.id]: err.message } : {});
          goTo(place.step, place.id);
        }
      }
    } finally {
      setBusy(false);
    }
  };

  /** The draft as it is now, then the bulk page, which reads it. */
  const sendToMany = async () => {
    if (!state) {
      return;
    }
    await saves.current;
    await saveDraft(toPayload(state), toUi(state));
    navigate('/panel/bulk');
  };

  const discard = async () => {
    if (!window.confirm(t.confirmDiscard)) {
      return;
    }
    await saves.current;
    await clearDraft();
    restored.current = null;
    setErrors({});
    setError(null);
    setState(emptyState());
  };

  return {
    state,
    errors,
    error,
    dismissError: () => setError(null),
    status,
    busy,
    sent,
    again: () => setSent(null),
    update,
    goTo,
    focus: setFocusId,
    send,
    sendToMany,
    discard,
  };
}

export type Prepare = ReturnType<typeof usePrepare>;
