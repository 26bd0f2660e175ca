// The documents of a set on the set page: each with its pages and the signer's boxes, shown on
// demand with the PDF viewer; and, once signed, the outcome with each signed PDF to download.
import { Fragment, useEffect, useRef, useState } from 'react';
import { formatDate, useI18n } from '../i18n';
import type { SetDocument } from '../set-api';
import { setDictionaries } from '../set-i18n';
import { PdfViewer, type ViewerBox } from './PdfViewer';

/** The documents of the set, each with its pages and the signer's boxes (and fields they fill), shown on demand. */
export function DocumentList({
  token,
  documents,
  version,
  extraBoxes,
}: {
  token: string;
  documents: SetDocument[];
  version: number;
  extraBoxes?: (d: SetDocument) => ViewerBox[];
}) {
  const { lang } = useI18n();
  const st = setDictionaries[lang];
  const [shown, setShown] = useState<Set<string>>(() => new Set());
  const toggle = (ticket: string) =>
    setShown((prev) => {
      const next = new Set(prev);
      if (!next.delete(ticket)) {
        next.add(ticket);
      }
      return next;
    });
  return (
    <section className="signers" aria-labelledby="documents-title" data-testid="set-documents">
      <h2 id="documents-title" className="section-title">
        {st.documentsHeading}
      </h2>
      <ul>
        {documents.map((d, i) => {
          const open = shown.has(d.document_ticket);
          const signed = d.signer_status === 'signed';
          return (
            <Fragment key={d.document_ticket}>
              <li className="signer" data-testid="set-document" data-ticket={d.document_ticket}>
                <span className="signer-name" style={{ flex: '1 1 auto', minWidth: 0 }}>
                  <strong>{d.name}</strong>
                  <br />
                  <small>
                    {st.pages(d.pages.length)} · {st.boxes(d.boxes.length)}
                  </small>
                </span>
                <span className={`badge badge-${signed ? 'signed' : 'viewed'}`}>{signed ? st.docSigned : st.docPending}</span>
                <button type="button" className="button button-secondary" aria-expanded={open} onClick={() => toggle(d.document_ticket)}>
                  {open ? st.hide : st.view}
                  <span className="visually-hidden"> {d.name}</span>
                </button>
              </li>
              {open && (
                <li className="set-viewer" data-embed-document={d.document_ticket} data-box-offset={boxesBefore(documents, i)}>
                  <PdfViewer
                    token={token}
                    pdfUrl={d.pdf_url}
                    pages={d.pages}
                    boxes={[...d.boxes, ...(extraBoxes?.(d) ?? [])]}
                    version={version}
                    signed={signed}
                  />
                </li>
              )}
            </Fragment>
          );
        })}
      </ul>
    </section>
  );
}

/** The signer's boxes in the documents before the `i`th: its boxes' place among all of the set's (use-embed-events.ts). */
const boxesBefore = (documents: SetDocument[], i: number) => documents.slice(0, i).reduce((n, d) => n + d.boxes.length, 0);

/** After signing: the outcome, and each signed PDF to download. */
export function SignedSet({ documents, signedAt, setStatus }: { documents: SetDocument[]; signedAt: string | null; setStatus: string }) {
  const { t, lang } = useI18n();
  const st = setDictionaries[lang];
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="outcome outcome-signed" aria-labelledby="outcome-title" data-testid="signed-state" data-set-status={setStatus}>
      <h2 ref={heading} id="outcome-title" tabIndex={-1} className="outcome-title">
        {st.signedAllTitle}
      </h2>
      {signedAt && <p>{t.signedAt(formatDate(signedAt, lang))}</p>}
      <p data-testid="set-status">{setStatus === 'COMPLETED' ? st.completedAll : st.waitingOthers}</p>
      <ul className="downloads" style={{ listStyle: 'none', padding: 0, display: 'grid', gap: 8 }}>
        {documents.map((d) => (
          <li key={d.document_ticket}>
            <a
              className="button button-primary"
              href={d.pdf_url}
              download={d.name.toLowerCase().endsWith('.pdf') ? d.name : `${d.name}.pdf`}
              data-testid="download-link"
            >
              {st.downloadOne(d.name)}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}
