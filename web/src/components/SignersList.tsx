// Who else signs this document, and where each one is.
import { useI18n } from '../i18n';

export function SignersList({ signers }: { signers: { name: string | null; status: string }[] }) {
  const { t } = useI18n();
  return (
    <section className="signers" aria-labelledby="signers-title">
      <h2 id="signers-title" className="section-title">
        {t.signersHeading}
      </h2>
      <ul>
        {signers.map((s, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the list is in signing order and never reordered; names may repeat or be absent
          <li key={i} className="signer">
            <span className="signer-name">{s.name ?? `${t.unnamed} ${i + 1}`}</span>
            <span className={`badge badge-${s.status}`}>{t.signerStatus[s.status] ?? s.status}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
