// What an endorser signs: the endorsement's type, its text and to whom the document passes, shown
// above the document so the endorser reads it before the pad (the box on the PDF says the same).
import { useI18n } from '../i18n';

export interface EndorsementCardProps {
  endorsement: { type: 'propiedad' | 'procuracion' | 'garantia'; text: string; endorsee: { name: string } };
}

export function EndorsementCard({ endorsement }: EndorsementCardProps) {
  const { t } = useI18n();
  return (
    <section className="sender" aria-label={t.endorsementLabel} data-testid="endorsement-card">
      <p className="sender-asks">
        <strong data-testid="endorsement-type">{t.endorsementTypes[endorsement.type]}</strong>
      </p>
      <blockquote data-testid="endorsement-text">{endorsement.text}</blockquote>
      <p data-testid="endorsement-to">{t.endorsementTo(endorsement.endorsee.name)}</p>
    </section>
  );
}
