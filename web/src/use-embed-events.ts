// The events a signer page posts by itself once embedded (embed-events.ts): `loaded` once its data
// is there, `error` for each error it shows, and `box_reached` the first time each of the signer's
// boxes comes into view or takes the focus ("next box"). The boxes are found by the attribute the
// viewer gives them (data-box-index, their reading order), watched from outside the viewer. On a
// set's page each document's viewer numbers its own boxes from 0: the element around it names the
// document (data-embed-document) and how many of the signer's boxes come before it in the set
// (data-box-offset), so that a box is counted once in the whole set, and the host learns its document.
import { useEffect, useRef } from 'react';
import type { ApiError } from './api';
import { type EmbedSubject, embeddingParent, postSignerEvent } from './embed-events';

export function useEmbedEvents(p: { subject: EmbedSubject | null; signerStatus?: string; boxCount: number; error: ApiError | null }) {
  const { subject, signerStatus, boxCount, error } = p;
  const key = subject ? (subject.document_ticket ?? subject.set_uuid) : null;
  const subjectRef = useRef(subject);
  subjectRef.current = subject;

  // biome-ignore lint/correctness/useExhaustiveDependencies: once per subject; the status is the one it loaded with
  useEffect(() => {
    if (subjectRef.current) {
      postSignerEvent(subjectRef.current, 'loaded', signerStatus ? { signer_status: signerStatus } : {});
    }
  }, [key]);

  useEffect(() => {
    if (error && subjectRef.current) {
      postSignerEvent(subjectRef.current, 'error', { code: error.code, message: error.message });
    }
  }, [error]);

  useEffect(() => {
    if (!key || boxCount === 0 || !embeddingParent()) {
      return;
    }
    const reached = new Set<number>();
    const reach = (el: Element) => {
      const index = el.getAttribute('data-box-index');
      const subject = subjectRef.current;
      if (index === null || index === '' || !subject) {
        return;
      }
      const scope = el.closest('[data-embed-document]');
      const boxIndex = Number(scope?.getAttribute('data-box-offset') ?? 0) + Number(index);
      if (reached.has(boxIndex)) {
        return;
      }
      reached.add(boxIndex);
      const document_ticket = scope?.getAttribute('data-embed-document');
      postSignerEvent(
        subject.set_uuid !== undefined && document_ticket ? { set_uuid: subject.set_uuid, document_ticket } : subject,
        'box_reached',
        {
          box_index: boxIndex,
          box_count: boxCount,
        },
      );
    };
    const seen = new IntersectionObserver(
      (entries) => {
        for (const e of entries) {
          if (e.isIntersecting) {
            reach(e.target);
          }
        }
      },
      { threshold: 0.5 },
    );
    const watchAll = () => {
      for (const el of document.querySelectorAll('[data-box-index]')) {
        seen.observe(el);
      }
    };
    // The pages (and their boxes) are drawn after the data: watch what appears.
    const added = new MutationObserver(watchAll);
    added.observe(document.body, { childList: true, subtree: true });
    watchAll();
    const focused = (e: FocusEvent) => {
      const box = e.target instanceof Element ? e.target.closest('[data-box-index]') : null;
      if (box) {
        reach(box);
      }
    };
    document.addEventListener('focusin', focused);
    return () => {
      seen.disconnect();
      added.disconnect();
      document.removeEventListener('focusin', focused);
    };
  }, [key, boxCount]);
}
