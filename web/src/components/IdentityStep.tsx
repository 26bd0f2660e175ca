// The step before the pad for a signer asked to verify their identity: the front and back of their
// identity document and a selfie. Each is taken with the camera inside the page where the browser
// gives one (CameraCapture.tsx), or chosen as a file; on a phone the file field opens the camera app
// (the `capture` attribute: the back camera for the document, the front one for the selfie).
// Then the images go to review, and the page says so until a person of the sender decides. The set
// page uses it too, with the set link's calls: one verification for all the documents of the set.
import { useState } from 'react';
import { ApiError, sendIdentityImage, startIdentityProvider, submitIdentity } from '../api';
import type { Lang } from '../api';
import { CameraCapture, cameraAvailable } from './CameraCapture';

type Kind = 'front' | 'back' | 'selfie';
const KINDS: Kind[] = ['front', 'back', 'selfie'];

const TEXT = {
  es: {
    heading: 'Verifica tu identidad',
    intro:
      'Antes de firmar, quien te envió el documento pide verificar tu identidad. Toma una foto de tu identificación oficial por ambos lados y una selfie: con buena luz, sin reflejos, que se lea todo el texto y se vea tu cara completa.',
    labels: { front: 'Identificación, frente', back: 'Identificación, reverso', selfie: 'Selfie' },
    hints: {
      front: 'La cara con tu foto, completa y enfocada.',
      back: 'El otro lado, completo y enfocado.',
      selfie: 'Tu cara de frente, sin lentes oscuros ni gorra.',
    },
    ready: 'Lista',
    send: 'Enviar a revisión',
    orProvider: (name: string) => `O verifica tu identidad con ${name}:`,
    provider: (name: string) => `Verificar con ${name}`,
    sending: 'Enviando…',
    pendingTitle: 'Tu identidad está en revisión',
    pending: 'Recibimos tus fotos. Cuando quien te envió el documento las revise podrás firmar: vuelve a abrir este enlace más tarde.',
    failedTitle: 'No se pudo verificar tu identidad',
    failed: 'Quien te envió el documento no aprobó la verificación, así que no puedes firmarlo. Comunícate con esa persona.',
    set: {
      intro:
        'Antes de firmar, quien te envió los documentos pide verificar tu identidad, una sola vez para todos. Toma una foto de tu identificación oficial por ambos lados y una selfie: con buena luz, sin reflejos, que se lea todo el texto y se vea tu cara completa.',
      pending:
        'Recibimos tus fotos. Cuando quien te envió los documentos las revise podrás firmarlos: vuelve a abrir este enlace más tarde.',
      failed: 'Quien te envió los documentos no aprobó la verificación, así que no puedes firmarlos. Comunícate con esa persona.',
    },
    reason: (r: string) => `Motivo: ${r}`,
    retry: 'Puedes intentarlo de nuevo: toma las fotos otra vez y envíalas.',
    quality: {
      blurry:
        'La foto salió borrosa y no se lee el texto. Sostén la identificación sin moverla, deja que la cámara enfoque y tómala de nuevo.',
      glare: 'Un reflejo tapa parte de la identificación. Inclínala o aléjate de la luz y tómala de nuevo.',
    } as Record<string, string>,
  },
  en: {
    heading: 'Verify your identity',
    intro:
      'Before you sign, the sender asks to verify your identity. Take a photo of both sides of your official ID and a selfie: in good light, without glare, with all the text readable and your whole face visible.',
    labels: { front: 'ID, front', back: 'ID, back', selfie: 'Selfie' },
    hints: {
      front: 'The side with your photo, whole and in focus.',
      back: 'The other side, whole and in focus.',
      selfie: 'Your face, looking ahead, without sunglasses or a cap.',
    },
    ready: 'Ready',
    send: 'Send for review',
    orProvider: (name: string) => `Or verify your identity with ${name}:`,
    provider: (name: string) => `Verify with ${name}`,
    sending: 'Sending…',
    pendingTitle: 'Your identity is being reviewed',
    pending: 'We received your photos. You can sign once the sender reviews them: open this link again later.',
    failedTitle: 'Your identity could not be verified',
    failed: 'The sender did not approve the verification, so you cannot sign this document. Please contact them.',
    set: {
      intro:
        'Before you sign, the sender asks to verify your identity, once for all the documents. Take a photo of both sides of your official ID and a selfie: in good light, without glare, with all the text readable and your whole face visible.',
      pending: 'We received your photos. You can sign the documents once the sender reviews them: open this link again later.',
      failed: 'The sender did not approve the verification, so you cannot sign these documents. Please contact them.',
    },
    reason: (r: string) => `Reason: ${r}`,
    retry: 'You may try again: take the photos once more and send them.',
    quality: {
      blurry: 'The photo is blurred and its text cannot be read. Hold the ID still, let the camera focus, and take it again.',
      glare: 'A reflection hides part of the ID. Tilt it or move away from the light, and take it again.',
    } as Record<string, string>,
  },
};

const readAsBase64 = (file: File) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });

/** The calls the step makes: a document link's (api.ts) or a set link's (set-api.ts). */
export interface IdentityApi {
  send: typeof sendIdentityImage;
  submit: typeof submitIdentity;
  provider: typeof startIdentityProvider;
}

const DOCUMENT_API: IdentityApi = { send: sendIdentityImage, submit: submitIdentity, provider: startIdentityProvider };

export interface IdentityStepProps {
  token: string;
  /** A set link's calls and texts (one verification for every document of the set). */
  set?: IdentityApi;
  language: Lang;
  identity: {
    status: string | null;
    captured: string[];
    submitted: boolean;
    provider: string | null;
    reason: string | null;
    retry: boolean;
    /** How many documents the verification is for: more than one for a signer of a set, whichever link they opened. */
    documents: number;
  };
  /** Runs an action as the page's other actions run (busy state, announced, errors shown). */
  run: (announce: string, action: () => Promise<void>) => Promise<void>;
  busy: boolean;
  /** The page reloads the signer's state after a submission. */
  onChanged: () => void;
}

type Texts = ReturnType<typeof textsOf>;

/** A set's texts for a set link, or for a verification that covers several documents. */
const textsOf = (p: IdentityStepProps) =>
  p.set || p.identity.documents > 1 ? { ...TEXT[p.language], ...TEXT[p.language].set } : TEXT[p.language];

export function IdentityStep(p: IdentityStepProps) {
  const t = textsOf(p);
  const api = p.set ?? DOCUMENT_API;
  const [captured, setCaptured] = useState<string[]>(p.identity.captured);

  const rejection = p.identity.status === 'verification_failed' && <Rejection t={t} identity={p.identity} />;
  if (p.identity.status === 'verification_failed' && !p.identity.retry) {
    return (
      <div className="identity-step" data-testid="identity-failed">
        {rejection}
      </div>
    );
  }
  if (p.identity.submitted) {
    return (
      <div className="identity-step" data-testid="identity-pending">
        <h2>{t.pendingTitle}</h2>
        <p>{t.pending}</p>
      </div>
    );
  }

  const send = (kind: Kind, image: () => Promise<string>) =>
    void p.run(t.sending, async () => {
      try {
        const state = await api.send(p.token, kind, await image());
        setCaptured(state.captured);
      } catch (err) {
        // A photo refused for its quality: say what to fix in the signer's language.
        const hint = err instanceof ApiError && err.code === 'IMAGE_QUALITY' ? t.quality[String(err.details?.problem)] : undefined;
        throw hint ? new ApiError(err instanceof ApiError ? err.status : 422, 'IMAGE_QUALITY', hint, (err as ApiError).details) : err;
      }
    });
  const complete = KINDS.every((k) => captured.includes(k));

  return (
    <form
      className="identity-step"
      onSubmit={(e) => {
        e.preventDefault();
        if (complete) {
          void p.run(t.sending, async () => {
            await api.submit(p.token);
            p.onChanged();
          });
        }
      }}
    >
      {rejection}
      <h2>{t.heading}</h2>
      <p>{t.intro}</p>
      {KINDS.map((kind) => (
        <Capture key={kind} kind={kind} t={t} p={p} ready={captured.includes(kind)} send={send} />
      ))}
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={!complete || p.busy}>
          {p.busy ? t.sending : t.send}
        </button>
      </div>
      {p.identity.provider && <ProviderOption t={t} p={p} provider={p.identity.provider} api={api} />}
    </form>
  );
}

/** The sender did not approve: why, and whether the signer may try again. */
function Rejection({ t, identity }: { t: Texts; identity: IdentityStepProps['identity'] }) {
  return (
    <div className="identity-rejection" role="status">
      <h2>{t.failedTitle}</h2>
      {identity.reason && <p>{t.reason(identity.reason)}</p>}
      <p>{identity.retry ? t.retry : t.failed}</p>
    </div>
  );
}

/** One photograph: a file field (the camera app on a phone) and the camera inside the page where there is one. */
function Capture(props: {
  kind: Kind;
  t: Texts;
  p: IdentityStepProps;
  ready: boolean;
  send: (kind: Kind, image: () => Promise<string>) => void;
}) {
  const { kind, t, p, send } = props;
  return (
    <div className="identity-field">
      <label htmlFor={`identity-${kind}`}>
        {t.labels[kind]} {props.ready && <span className="badge badge-signed">{t.ready}</span>}
      </label>
      <p className="hint" id={`identity-${kind}-hint`}>
        {t.hints[kind]}
      </p>
      <input
        id={`identity-${kind}`}
        type="file"
        accept="image/jpeg,image/png"
        capture={kind === 'selfie' ? 'user' : 'environment'}
        aria-describedby={`identity-${kind}-hint`}
        disabled={p.busy}
        onChange={(e) => {
          const file = e.target.files?.[0];
          if (file) {
            send(kind, () => readAsBase64(file));
          }
        }}
      />
      {cameraAvailable() && (
        <CameraCapture
          language={p.language}
          facing={kind === 'selfie' ? 'user' : 'environment'}
          label={t.labels[kind]}
          disabled={p.busy}
          onPhoto={(dataUrl) => send(kind, async () => dataUrl)}
        />
      )}
    </div>
  );
}

/** The identity provider the sender offers instead of the photographs. */
function ProviderOption({ t, p, provider, api }: { t: Texts; p: IdentityStepProps; provider: string; api: IdentityApi }) {
  return (
    <div className="identity-provider">
      <p>{t.orProvider(provider)}</p>
      <button
        type="button"
        className="button"
        disabled={p.busy}
        onClick={() =>
          void p.run(t.sending, async () => {
            // The provider's page; it sends the signer back to this link when done.
            window.location.assign((await api.provider(p.token)).url);
          })
        }
      >
        {t.provider(provider)}
      </button>
    </div>
  );
}
