// Taking a photo with the device's camera inside the page (getUserMedia), for browsers that give a
// live camera: a desktop with a webcam, or a phone where the signer prefers to frame the shot here.
// The file field beside it stays the other way (and on phones it opens the camera app itself). The
// frame is taken at the camera's own resolution and sent as a JPEG; nothing leaves the page before
// the signer presses "take".
import { useEffect, useRef, useState } from 'react';
import type { Lang } from '../api';

const TEXT = {
  es: {
    open: 'Usar la cámara',
    take: 'Tomar foto',
    cancel: 'Cancelar',
    preview: 'Vista de la cámara',
    denied: 'No se pudo abrir la cámara. Permite el acceso a la cámara o elige un archivo.',
  },
  en: {
    open: 'Use the camera',
    take: 'Take photo',
    cancel: 'Cancel',
    preview: 'Camera preview',
    denied: 'The camera could not be opened. Allow access to the camera or choose a file.',
  },
};

export interface CameraCaptureProps {
  language: Lang;
  /** 'user' for a selfie, 'environment' (the back camera) for a document. */
  facing: 'user' | 'environment';
  /** What is photographed, for the buttons' accessible names. */
  label: string;
  disabled: boolean;
  /** The photo as a data: URL (image/jpeg). */
  onPhoto: (dataUrl: string) => void;
}

export const cameraAvailable = () => typeof navigator !== 'undefined' && !!navigator.mediaDevices?.getUserMedia;

export function CameraCapture(p: CameraCaptureProps) {
  const t = TEXT[p.language];
  const video = useRef<HTMLVideoElement>(null);
  const [stream, setStream] = useState<MediaStream | null>(null);
  const [error, setError] = useState(false);

  useEffect(() => {
    if (stream && video.current) {
      video.current.srcObject = stream;
    }
    // The camera is released when the panel closes or the step goes away.
    return () => {
      for (const track of stream?.getTracks() ?? []) {
        track.stop();
      }
    };
  }, [stream]);

  const open = async () => {
    setError(false);
    try {
      setStream(await navigator.mediaDevices.getUserMedia({ video: { facingMode: p.facing, width: { ideal: 1920 } }, audio: false }));
    } catch {
      setError(true);
    }
  };

  const take = () => {
    const v = video.current;
    if (!v || v.videoWidth === 0) {
      return;
    }
    const canvas = document.createElement('canvas');
    canvas.width = v.videoWidth;
    canvas.height = v.videoHeight;
    canvas.getContext('2d')!.drawImage(v, 0, 0);
    setStream(null);
    p.onPhoto(canvas.toDataURL('image/jpeg', 0.92));
  };

  if (!stream) {
    return (
      <>
        <button type="button" className="button" disabled={p.disabled} onClick={() => void open()} aria-label={`${t.open}: ${p.label}`}>
          {t.open}
        </button>
        {error && (
          <p className="hint" role="alert">
            {t.denied}
          </p>
        )}
      </>
    );
  }
  return (
    <div className="camera">
      <video ref={video} autoPlay playsInline muted aria-label={`${t.preview}: ${p.label}`} className="camera-preview" />
      <div className="actions">
        <button type="button" className="button button-primary" disabled={p.disabled} onClick={take} aria-label={`${t.take}: ${p.label}`}>
          {t.take}
        </button>
        <button type="button" className="button" onClick={() => setStream(null)}>
          {t.cancel}
        </button>
      </div>
    </div>
  );
}
