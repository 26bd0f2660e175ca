// One document: its signers and their states, its downloads, its NOM-151 stamps, and its history as a timeline with
// the verdict of the hash chain (checked by the server, as GET .../history/json does).
// The history's words are the history PDF's own (a pure module of the server, shared); signers are
// named as the PDF names them (the server sends `people`), never by their ids.
import { historyLabels } from '../../../src/domain/history/history-labels.js';
import { api, type DocumentPageData, downloadUrl } from './api';
import { usePanelI18n } from './panel-i18n';
import { DocumentStamps } from './DocumentStamps';
import { ActionResult, DocumentActions, SignerActions, useAction } from './DocumentActions';
import { Badge, ErrorBox, Link, PageHeading, useLoad } from './widgets';

export function DocumentPage({ ticket }: { ticket: string }) {
  const { t, when } = usePanelI18n();
  const { data, error, reload } = useLoad(() => api.document(ticket), [ticket]);
  const action = useAction(reload);
  const back = (
    <p>
      <Link href="/panel">← {t.back}</Link>
    </p>
  );
  if (!data) {
    return (
      <section>
        {back}
        <ErrorBox error={error} onDismiss={reload} />
        {!error && <p className="loading">{t.loading}</p>}
      </section>
    );
  }
  const d = data.document;
  return (
    <section aria-labelledby="document-title">
      {back}
      <PageHeading>
        <span id="document-title">{d.name}</span>
      </PageHeading>
      <p className="doc-meta">
        <Badge kind={d.status}>{t.status[d.status] ?? d.status}</Badge> {t.progress(d.signed_count, d.signers.length)} ·{' '}
        {when(d.created_at)}
      </p>
      <ActionResult action={action} />

      <div className="card">
        <h2 className="section-title">{t.signersTitle}</h2>
        <ul className="signers" data-testid="signers">
          {d.signers.map((s) => (
            <li key={s.signer_id} className="signer">
              <span className="signer-name">
                {s.name ?? s.data}
                {s.email && s.email !== s.name && <span className="muted"> · {s.email}</span>}
                <span className="muted"> · {s.authority}</span>
                {s.delivery_error && <span className="notice-error"> · {t.deliveryFailed}</span>}
              </span>
              <Badge kind={s.status}>{t.signerStatus[s.status] ?? s.status}</Badge>
              <SignerActions data={data} signer={s} action={action} />
            </li>
          ))}
        </ul>
      </div>

      <DocumentActions data={data} action={action} />
      <Downloads ticket={d.document_ticket} completed={d.status === 'completed'} />
      <DocumentStamps ticket={d.document_ticket} />
      <History history={data.history} people={data.people} />
    </section>
  );
}

/** The files the account can download; the universal PDF once the document is completed. */
function Downloads({ ticket, completed }: { ticket: string; completed: boolean }) {
  const { t, lang } = usePanelI18n();
  const downloads = [
    ['source', t.dlSource],
    ['original', t.dlOriginal],
    ...(completed ? [['universal', t.dlUniversal]] : []),
    ['report', t.dlReport],
    ['history', t.dlHistory],
  ] as ['source' | 'original' | 'universal' | 'report' | 'history', string][];
  return (
    <div className="card">
      <h2 className="section-title">{t.downloadsTitle}</h2>
      <ul className="downloads">
        {downloads.map(([what, label]) => (
          <li key={what}>
            <a href={downloadUrl(ticket, what, lang)} download data-testid={`download-${what}`}>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The history as a timeline, with the verdict of its hash chain. */
function History({ history, people }: Pick<DocumentPageData, 'history' | 'people'>) {
  const { t, lang, when } = usePanelI18n();
  const labels = historyLabels(lang);
  const signerOf = (details: Record<string, unknown>) =>
    typeof details.signer_id === 'string' ? people[`signer:${details.signer_id}`] : undefined;
  return (
    <div className="card">
      <h2 className="section-title">{t.historyTitle}</h2>
      <p className={history.chain.valid ? 'chain chain-ok' : 'chain chain-broken'} data-testid="chain">
        {history.chain.valid ? t.chainValid(history.chain.entries) : t.chainBroken(history.chain.first_broken_seq ?? null)}
      </p>
      <ol className="timeline">
        {history.entries.map((e) => (
          <li key={e.seq}>
            <time dateTime={e.at}>{when(e.at)}</time>
            <span className="timeline-action">{labels.action(e.action)}</span>
            <span className="muted timeline-actor"> · {people[e.actor] ?? labels.actor(e.actor)}</span>
            {!people[e.actor] && signerOf(e.details) && <span className="muted"> · {t.aboutSigner(signerOf(e.details)!)}</span>}
            <code className="hash" title={e.hash}>
              #{e.seq} {e.hash.slice(0, 12)}…
            </code>
          </li>
        ))}
      </ol>
    </div>
  );
}
