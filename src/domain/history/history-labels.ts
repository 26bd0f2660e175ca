// The words of the history PDF, in Spanish and English. An action this list does not know (one
// added later) is shown by its identifier, never dropped.

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

const ACTIONS: Record<string, { es: string; en: string }> = {
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
  deleted: { es: 'Eliminado', en: 'Deleted' },
  restored: { es: 'Restaurado', en: 'Restored' },
};

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
    action: (id) => ACTIONS[id]?.[language] ?? id,
    actor: (actor) => {
      if (actor === 'account') {
        return es ? 'La cuenta (API)' : 'The account (API)';
      }
      if (actor === 'system') {
        return es ? 'El sistema' : 'The system';
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
