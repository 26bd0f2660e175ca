// Settings of identity verification (SELLO_IDENTITY_*), apart from config.ts for size: the evidence
// the signer page takes, how long it is kept, and the external verification provider when the
// operator has one (all three of its settings, or none).
export interface IdentitySettings {
  /** Largest evidence image accepted, in bytes. */
  maxImageBytes: number;
  /** Days the images of a decided review are kept, then deleted. */
  evidenceDays: number;
  /** An external verification provider (docs/api.md, "External providers"); absent: manual review only. */
  provider?: IdentityProviderSettings;
  /** Limits of the built-in checks' worker threads (jail/image-jail.ts). */
  checks: IdentityCheckSettings;
}

export interface IdentityCheckSettings {
  /** Longest the decoding and measuring of one captured image may take (then 422 IMAGE_TOO_COMPLEX). */
  qualityTimeoutMs: number;
  /** Longest the reading of one document image's machine-readable zone may take. */
  ocrTimeoutMs: number;
  /** Heap limit of each of those worker threads, in MB. */
  memoryMb: number;
  /** Longest finding and describing the faces of one image may take. */
  faceTimeoutMs: number;
  /** WebAssembly memory of the face worker past which it is replaced (outside the heap limit), in MB. */
  faceWasmMb: number;
}

export interface IdentityProviderSettings {
  /** Its API's base URL: sessions are created at `${url}/sessions`. */
  url: string;
  /** Bearer token of the service's calls to it. */
  apiKey: string;
  /** Key of the HMAC-SHA256 signature of its result callbacks. */
  callbackSecret: string;
  /** Its name, as the events and the report give it. */
  name: string;
}

type Env = Record<string, string | undefined>;

export function identitySettings(env: Env, problems: string[]): IdentitySettings {
  const get = (n: string) => env[n] || undefined;
  const int = (n: string, fallback: number, min: number, max: number) => {
    const raw = get(n);
    const v = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(v) || v < min || v > max) {
      problems.push(`${n}=${JSON.stringify(raw)}: expected a whole number from ${min} to ${max}`);
      return fallback;
    }
    return v;
  };
  const out: IdentitySettings = {
    maxImageBytes: int('SELLO_IDENTITY_IMAGE_MB', 5, 1, 20) * 1024 * 1024,
    evidenceDays: int('SELLO_IDENTITY_EVIDENCE_DAYS', 30, 1, 3650),
    checks: {
      qualityTimeoutMs: int('SELLO_IDENTITY_CHECK_TIMEOUT_MS', 15000, 1000, 600000),
      ocrTimeoutMs: int('SELLO_IDENTITY_OCR_TIMEOUT_MS', 60000, 1000, 600000),
      memoryMb: int('SELLO_IDENTITY_CHECK_MEMORY_MB', 512, 128, 16384),
      faceTimeoutMs: int('SELLO_IDENTITY_FACE_TIMEOUT_MS', 30000, 1000, 600000),
      faceWasmMb: int('SELLO_IDENTITY_FACE_WASM_MB', 768, 256, 4096),
    },
  };
  const names = ['SELLO_IDENTITY_PROVIDER_URL', 'SELLO_IDENTITY_PROVIDER_KEY', 'SELLO_IDENTITY_PROVIDER_SECRET'];
  const given = names.filter((n) => get(n));
  if (given.length > 0 && given.length < names.length) {
    problems.push(`${names.join(', ')}: set all three or none (missing: ${names.filter((n) => !get(n)).join(', ')})`);
    return out;
  }
  if (given.length === names.length) {
    const url = get('SELLO_IDENTITY_PROVIDER_URL')!.replace(/\/+$/, '');
    if (!/^https?:\/\/\S+$/.test(url)) {
      problems.push(`SELLO_IDENTITY_PROVIDER_URL=${JSON.stringify(url)}: expected an http(s) URL`);
    }
    out.provider = {
      url,
      apiKey: get('SELLO_IDENTITY_PROVIDER_KEY')!,
      callbackSecret: get('SELLO_IDENTITY_PROVIDER_SECRET')!,
      name: get('SELLO_IDENTITY_PROVIDER_NAME') ?? 'external',
    };
  }
  return out;
}
