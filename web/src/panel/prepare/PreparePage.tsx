// "Send a document": the document, its signers, their boxes on the pages and the flow's options, in
// four steps, kept as a draft in this browser (draft-store.ts) until Send posts it to
// POST /panel/api/documents, the API's create with the session's account. "Send to many" hands the
// draft to the bulk page.
import type { CreatedDocument } from '../../../../src/schemas/documents.js';
import './prepare.css';
import { usePanelI18n } from '../panel-i18n';
import { ErrorBox, Link, PageHeading } from '../widgets';
import { OptionsStep } from './OptionsStep';
import { PlacementStep } from './PlacementStep';
import { PreparedPages } from './PreparedPages';
import { SignersStep } from './SignersStep';
import { SourceStep } from './SourceStep';
import { shownPdf, STEPS } from './state';
import { type Prepare, usePrepare } from './use-prepare';
import { usePreparedPdf } from './use-prepared-pdf';

export function PreparePage({ zone }: { zone: string }) {
  const { t } = usePanelI18n();
  const p = usePrepare();
  return (
    <section aria-labelledby="prepare-title" className="prepare">
      <PageHeading>
        <span id="prepare-title">{t.prepareTitle}</span>
      </PageHeading>
      {p.sent ? (
        <Sent created={p.sent.created} names={p.sent.names} again={p.again} />
      ) : !p.state ? (
        <p className="loading">{t.loading}</p>
      ) : (
        <Editor p={p} zone={zone} />
      )}
    </section>
  );
}

function Editor({ p, zone }: { p: Prepare; zone: string }) {
  const { t } = usePanelI18n();
  const s = p.state!;
  const { pdf, failed } = usePreparedPdf(shownPdf(s));
  const step = s.step;
  const last = STEPS.length - 1;
  return (
    <>
      <p className="hint">{t.prepareIntro}</p>
      <nav aria-label={t.stepsLabel}>
        <ol className="prepare-steps">
          {STEPS.map((name, i) => (
            <li key={name}>
              <button
                type="button"
                className="link-button prepare-step-link"
                aria-current={i === step ? 'step' : undefined}
                onClick={() => p.goTo(i)}
                data-testid={`step-${name}`}
              >
                {i + 1}. {t.stepNames[i]}
              </button>
            </li>
          ))}
        </ol>
      </nav>
      <p className="hint" role="status" data-testid="draft-status" data-status={p.status}>
        {p.status === 'saving' ? t.draftSaving : p.status === 'saved' ? t.draftSaved : p.status === 'failed' ? t.draftFailed : t.draftNone}
      </p>
      <ErrorBox error={p.error} onDismiss={p.dismissError} />
      <h2 className="section-title" id={`prepare-step-${step}`} tabIndex={-1}>
        {t.stepOf(step + 1, STEPS.length)}: {t.stepNames[step]}
      </h2>
      <div className="prepare-step" data-testid={`prepare-${STEPS[step]}`}>
        {step === 0 && <SourceStep p={p} />}
        {step === 1 && <SignersStep p={p} />}
        {step === 2 && <PlacementStep p={p} pdf={pdf} />}
        {step === 3 && <OptionsStep p={p} zone={zone} />}
      </div>
      {step === 0 && failed && (
        <p className="field-error" role="alert">
          {t.pdfUnreadable}
        </p>
      )}
      {step === 0 && pdf && <PreparedPages pdf={pdf} />}
      <div className="actions prepare-actions">
        {step > 0 && (
          <button type="button" className="button button-secondary" onClick={() => p.goTo(step - 1)}>
            {t.stepBack}
          </button>
        )}
        {step < last && (
          <button type="button" className="button button-primary" onClick={() => p.goTo(step + 1)} data-testid="next-step">
            {t.nextStep}
          </button>
        )}
        {step === last && (
          <button type="button" className="button button-primary" onClick={p.send} disabled={p.busy} data-testid="send">
            {p.busy ? t.sendingDoc : t.send}
          </button>
        )}
        <button type="button" className="button button-secondary" onClick={p.sendToMany} data-testid="send-to-many">
          {t.sendToMany}
        </button>
        <button type="button" className="button button-danger-outline" onClick={p.discard} data-testid="discard">
          {t.discard}
        </button>
      </div>
    </>
  );
}

/** What Send made: the document's page, and each signer's link to hand over when the service does not send it. */
function Sent({ created, names, again }: { created: CreatedDocument; names: string[]; again: () => void }) {
  const { t } = usePanelI18n();
  return (
    <div className="card" role="status" data-testid="sent">
      <h2 className="section-title">{t.sentTitle}</h2>
      <p>
        <Link href={`/panel/documents/${encodeURIComponent(created.document_ticket)}`} data-testid="sent-document">
          {t.sentOpen}
        </Link>
      </p>
      <p>{t.sentLinks}</p>
      <ul className="prepare-links">
        {created.stickers
          .filter((x, i, all) => all.findIndex((y) => y.signer_id === x.signer_id) === i)
          .map((x) => (
            <li key={x.signer_id}>
              {names[x.sticker_index] ?? x.sticker_data} ({x.sticker_data}):{' '}
              <code className="small" data-testid="sent-link">
                {x.signer_url}
              </code>
            </li>
          ))}
      </ul>
      <div className="actions">
        <button type="button" className="button button-primary" onClick={again}>
          {t.sentAnother}
        </button>
      </div>
    </div>
  );
}
