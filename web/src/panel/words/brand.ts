// The panel's words for the brand page (the sender's brand and the sites that may frame the signer
// pages), in Spanish and English.

export const brandEs = {
  brandTitle: 'Marca',
  navBrand: 'Marca',
  brandIntro: 'Cómo ven a la cuenta sus firmantes: la página de firma, los correos y la página de verificación.',
  brandNameLabel: 'Nombre junto al logotipo',
  brandColourLabel: 'Color principal (#rrggbb)',
  brandColourHint: 'El texto blanco sobre él debe contrastar al menos 4.5:1.',
  senderNameLabel: 'Nombre del remitente de los correos',
  replyToLabel: 'Responder a (correo)',
  hideSelloLabel: 'No mostrar el nombre de Sello',
  frameOriginsLabel: 'Sitios que pueden mostrar la página de firma en un marco (uno por línea)',
  frameOriginsHint: 'Orígenes como https://app.ejemplo.com, sin ruta.',
  saveBrand: 'Guardar',
  brandSaved: 'Marca guardada.',
};

export const brandEn: typeof brandEs = {
  brandTitle: 'Brand',
  navBrand: 'Brand',
  brandIntro: "How the account's signers see it: the signing page, the emails and the verification page.",
  brandNameLabel: 'Name beside the logo',
  brandColourLabel: 'Primary colour (#rrggbb)',
  brandColourHint: 'White text on it must reach a contrast of 4.5:1.',
  senderNameLabel: 'Sender name of the emails',
  replyToLabel: 'Reply-To (email)',
  hideSelloLabel: "Hide Sello's name",
  frameOriginsLabel: 'Sites that may show the signing page in a frame (one a line)',
  frameOriginsHint: 'Origins such as https://app.example.com, no path.',
  saveBrand: 'Save',
  brandSaved: 'Brand saved.',
};
