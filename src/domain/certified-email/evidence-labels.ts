// The words of the certified-email evidence PDF, in Spanish and English (the document's language).

export interface EvidenceLabels {
  locale: string;
  title: string;
  fileName: string;
  generated: string;
  document: string;
  ticket: string;
  documentSha256: string;
  delivery: string;
  attached: string;
  linkOnly: string;
  recipient: string;
  subject: string;
  message: string;
  messageId: string;
  contentSha256: string;
  contentBytes: string;
  queued: string;
  sent: string;
  smtpReply: string;
  refused: string;
  delivered: string;
  bounced: string;
  opened: string;
  downloaded: string;
  reports: string;
  reportColumns: string[];
  notYet: string;
  /** The row of a message that failed without an answer from the SMTP server. */
  notHandedOver: string;
  /** After a delivery report's action when it was matched by the Message-ID only. */
  unverified: string;
  notSent: string;
  visitor: (ip: string | null, userAgent: string | null) => string;
  explain: string;
  howToVerify: string;
  sealName: string;
  sealLabel: string;
  sealReason: string;
}

const ENGLISH: EvidenceLabels = {
  locale: 'en-US',
  title: 'Certified email: evidence',
  fileName: 'certified-email-evidence',
  generated: 'Issued',
  document: 'Document',
  ticket: 'Ticket',
  documentSha256: 'SHA-256 of the PDF sent',
  delivery: 'The PDF travelled',
  attached: 'attached to the message (and by a link)',
  linkOnly: 'by a link only (over the attachment limit)',
  recipient: 'Recipient',
  subject: 'Subject',
  message: 'Message',
  messageId: 'Message-ID',
  contentSha256: 'SHA-256 of the message exactly as sent (RFC 5322 bytes)',
  contentBytes: 'Size of the message (bytes)',
  queued: 'Queued for sending',
  sent: 'Handed to the SMTP server (accepted)',
  smtpReply: "The SMTP server's reply",
  refused: 'Refused by the SMTP server',
  delivered: 'Delivery confirmed (delivery-status notification)',
  bounced: 'Bounced (delivery-status notification)',
  opened: 'First open, seen through an image in the message (probable read)',
  downloaded: 'First download of the PDF through its link (proven retrieval)',
  reports: 'Delivery-status notifications received',
  reportColumns: ['Received', 'Action', 'Status', 'Server diagnostic', 'Reporting server'],
  notYet: 'not known',
  notHandedOver: 'Not handed over (no answer from the SMTP server)',
  unverified: 'unverified: without the envelope id',
  notSent: 'not sent yet',
  visitor: (ip, ua) => `from ${ip ?? 'unknown address'}${ua ? `, ${ua}` : ''}`,
  explain:
    'An open is recorded when an email client loads the image in the message: it shows the message was probably displayed, ' +
    'but image proxies and mail scanners may load it too, and a client that blocks images shows none. A download is recorded ' +
    'when the PDF is fetched through the link in the message: the document itself was retrieved.',
  howToVerify:
    "This record is sealed by the service with a PAdES signature and a time stamp; check it with any PDF signature validator (e.g. pdfsig) against the service's root certificate.",
  sealName: 'certified email evidence',
  sealLabel: "Service's seal",
  sealReason: 'Evidence of a certified email, issued by the service',
};

const SPANISH: EvidenceLabels = {
  locale: 'es-MX',
  title: 'Correo certificado: constancia',
  fileName: 'constancia-correo-certificado',
  generated: 'Emitida',
  document: 'Documento',
  ticket: 'Ticket',
  documentSha256: 'SHA-256 del PDF enviado',
  delivery: 'El PDF viajó',
  attached: 'adjunto al mensaje (y por un enlace)',
  linkOnly: 'solo por un enlace (supera el límite de adjuntos)',
  recipient: 'Destinatario',
  subject: 'Asunto',
  message: 'Mensaje',
  messageId: 'Message-ID',
  contentSha256: 'SHA-256 del mensaje tal como se envió (bytes RFC 5322)',
  contentBytes: 'Tamaño del mensaje (bytes)',
  queued: 'En cola para envío',
  sent: 'Entregado al servidor SMTP (aceptado)',
  smtpReply: 'Respuesta del servidor SMTP',
  refused: 'Rechazado por el servidor SMTP',
  delivered: 'Entrega confirmada (notificación de estado de entrega)',
  bounced: 'Rebotado (notificación de estado de entrega)',
  opened: 'Primera apertura, vista por una imagen del mensaje (lectura probable)',
  downloaded: 'Primera descarga del PDF por su enlace (recuperación comprobada)',
  reports: 'Notificaciones de estado de entrega recibidas',
  reportColumns: ['Recibida', 'Acción', 'Estado', 'Diagnóstico del servidor', 'Servidor que informa'],
  notYet: 'no consta',
  notHandedOver: 'No entregado al servidor (sin respuesta del servidor SMTP)',
  unverified: 'no verificado: sin el identificador del envío',
  notSent: 'aún no enviado',
  visitor: (ip, ua) => `desde ${ip ?? 'dirección desconocida'}${ua ? `, ${ua}` : ''}`,
  explain:
    'La apertura se registra cuando un cliente de correo carga la imagen del mensaje: indica que el mensaje probablemente se mostró, ' +
    'pero los proxies de imágenes y los analizadores de correo también pueden cargarla, y un cliente que bloquea imágenes no la registra. ' +
    'La descarga se registra cuando el PDF se obtiene por el enlace del mensaje: el documento mismo fue recuperado.',
  howToVerify:
    'Esta constancia está sellada por el servicio con una firma PAdES y un sello de tiempo; verifíquela con cualquier validador de firmas PDF (p. ej. pdfsig) contra el certificado raíz del servicio.',
  sealName: 'constancia de correo certificado',
  sealLabel: 'Sello del servicio',
  sealReason: 'Constancia de correo certificado emitida por el servicio',
};

export function evidenceLabels(language: 'es' | 'en'): EvidenceLabels {
  return language === 'en' ? ENGLISH : SPANISH;
}
