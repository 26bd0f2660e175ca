// The words of the history PDF and of the panel's timeline, in Spanish and English. The list of
// actions is the list appendHistory accepts (HistoryAction): an action cannot be written without
// its words. An identifier this list does not know (an entry written by an older version) is shown
// as it is, never dropped.

export interface HistoryLabels {
  locale: string;
  title: string;
  fileName: string;
  document: string;
  ticket: string;
  generated: string;
  columns: string[];
  action(id: string): string;
  actor(actor: string): string;
  chainValid(entries: number): string;
  chainBroken(firstBrokenSeq: number | null): string;
  headHash: string;
  howToVerify: string;
  sealName: string;
  sealLabel: string;
  sealReason: string;
}

const ACTIONS = {
  created: { es: 'Creado', en: 'Created' },
  decrypted: {
    es: 'Descifrado: protegido solo con contraseña de propietario',
    en: 'Decrypted: protected by an owner password only',
  },
  flow_started: { es: 'Flujo iniciado', en: 'Flow started' },
  invited: { es: 'Invitación enviada', en: 'Invitation sent' },
  reminded: { es: 'Recordatorio enviado', en: 'Reminder sent' },
  link_requested: { es: 'Enlace personal solicitado', en: 'Personal link requested' },
  viewed: { es: 'Visto', en: 'Viewed' },
  otp_sent: { es: 'Código enviado', en: 'Code sent' },
  otp_verified: { es: 'Código verificado', en: 'Code verified' },
  message_failed: { es: 'Mensaje no entregado', en: 'Message not delivered' },
  identity_submitted: { es: 'Identificación enviada a revisión', en: 'Identity evidence submitted for review' },
  identity_checked: { es: 'Identificación revisada por el servicio', en: 'Identity evidence checked by the service' },
  identity_verified: { es: 'Identidad verificada', en: 'Identity verified' },
  identity_rejected: { es: 'Identidad no verificada', en: 'Identity not verified' },
  signed: { es: 'Firmado', en: 'Signed' },
  rejected: { es: 'Rechazado', en: 'Rejected' },
  set_rejected: { es: 'Conjunto rechazado', en: 'Set rejected' },
  completed: { es: 'Completado', en: 'Completed' },
  conclusion_sent: { es: 'Conclusión enviada', en: 'Conclusion sent' },
  certified_email_queued: { es: 'Correo certificado en cola', en: 'Certified email queued' },
  certified_email_sent: { es: 'Correo certificado aceptado por el servidor SMTP', en: 'Certified email accepted by the SMTP server' },
  certified_email_refused: { es: 'Correo certificado rechazado', en: 'Certified email refused' },
  certified_email_failed: { es: 'Correo certificado no entregado al servidor', en: 'Certified email not handed over' },
  certified_email_delivered: { es: 'Correo certificado entregado', en: 'Certified email delivered' },
  certified_email_bounced: { es: 'Correo certificado rebotado', en: 'Certified email bounced' },
  certified_email_report: { es: 'Aviso de entrega recibido', en: 'Delivery report received' },
  certified_email_opened: { es: 'Correo certificado abierto (imagen)', en: 'Certified email opened (image)' },
  certified_email_downloaded: {
    es: 'Documento descargado por el enlace del correo certificado',
    en: 'Document downloaded through the certified email link',
  },
  expired: { es: 'Vencido', en: 'Expired' },
  cancelled: { es: 'Cancelado', en: 'Cancelled' },
  workflow_changed: { es: 'Flujo modificado', en: 'Workflow changed' },
  flow_restarted: { es: 'Flujo reiniciado', en: 'Flow restarted' },
  signer_updated: { es: 'Firmante corregido', en: 'Signer corrected' },
  endorsement_requested: { es: 'Endoso solicitado', en: 'Endorsement requested' },
  endorsed: { es: 'Endosado', en: 'Endorsed' },
  endorsement_declined: { es: 'Endoso rechazado por el endosante', en: 'Endorsement declined by the endorser' },
  endorsement_withdrawn: { es: 'Endoso retirado por la cuenta', en: 'Endorsement withdrawn by the account' },
  universal_signed: { es: 'Versión universal firmada (validación a largo plazo)', en: 'Universal rendition signed (long-term validation)' },
  universal_renewed: { es: 'Sello de tiempo de la versión universal renovado', en: 'Universal rendition time stamp renewed' },
  universal_failed: { es: 'Versión universal no generada', en: 'Universal rendition not made' },
  universal_renewal_failed: {
    es: 'Renovación de la versión universal no realizada',
    en: 'Universal rendition renewal not made',
  },
  nom151_stamped: { es: 'Sello NOM-151 aplicado', en: 'NOM-151 stamp applied' },
  nom151_stamp_failed: { es: 'Sello NOM-151 no obtenido', en: 'NOM-151 stamp not obtained' },
  deleted: { es: 'Eliminado', en: 'Deleted' },
  purged: { es: 'Purgado tras el plazo de conservación de los eliminados', en: 'Purged after the retention period of deleted documents' },
  restored: { es: 'Restaurado', en: 'Restored' },
} satisfies Record<string, { es: string; en: string }>;

/** An action a document's history records; each has its words in both languages. */
export type HistoryAction = keyof typeof ACTIONS;

/** Every action of the list, in its order. */
export const HISTORY_ACTIONS = Object.keys(ACTIONS) as readonly HistoryAction[];

/** Whether `id` is an action of the list (appendHistory refuses any other, cast or not). */
export function isHistoryAction(id: string): id is HistoryAction {
  return Object.hasOwn(ACTIONS, id);
}

export function historyLabels(language: 'es' | 'en'): HistoryLabels {
  const es = language === 'es';
  return {
    locale: es ? 'es-MX' : 'en-US',
    title: es ? 'Historial del documento' : 'Document history',
    fileName: es ? 'historial' : 'history',
    document: es ? 'Documento' : 'Document',
    ticket: es ? 'Ticket' : 'Ticket',
    generated: es ? 'Generado' : 'Generated',
    columns: es
      ? ['#', 'Fecha y hora', 'Acción', 'Quién', 'Dirección IP', 'Detalles']
      : ['#', 'Date and time', 'Action', 'Who', 'IP address', 'Details'],
    action: (id) => (isHistoryAction(id) ? ACTIONS[id][language] : id),
    actor: (actor) => {
      if (actor === 'account') {
        return es ? 'La cuenta (API)' : 'The account (API)';
      }
      if (actor === 'system') {
        return es ? 'El sistema' : 'The system';
      }
      if (actor === 'public') {
        // Someone holding only the document's public link (asking for a personal link, opening a
        // certified email's link): not yet known as any signer.
        return es ? 'Alguien con el enlace del documento' : 'Someone with the document link';
      }
      if (actor.startsWith('signer:')) {
        return `${es ? 'Firmante' : 'Signer'} ${actor.slice('signer:'.length)}`;
      }
      return actor;
    },
    chainValid: (n) =>
      es
        ? `Cadena de hashes verificada: las ${n} entradas están como se escribieron.`
        : `Hash chain verified: all ${n} entries are as written.`,
    chainBroken: (seq) =>
      es
        ? `Cadena de hashes rota${seq === null ? '' : ` desde la entrada ${seq}`}: el historial fue alterado.`
        : `Hash chain broken${seq === null ? '' : ` from entry ${seq}`}: the history was altered.`,
    headHash: es ? 'Hash de la última entrada' : 'Hash of the last entry',
    howToVerify: es
      ? 'Este PDF está sellado por el servicio (firma PAdES con sello de tiempo). Compare el historial con GET /api/v1/document/{ticket}/history/json.'
      : 'This PDF is sealed by the service (a PAdES signature with a time stamp). Compare the history with GET /api/v1/document/{ticket}/history/json.',
    sealName: es ? 'historial de documentos' : 'document history',
    sealLabel: es ? 'Sello del servicio' : 'Service seal',
    sealReason: es ? 'Historial sellado por el servicio' : 'History sealed by the service',
  };
}
