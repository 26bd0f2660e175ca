// One PKCS#11 token, through pkcs11js: the module loaded and initialised once per process, the user
// logged in, a small pool of sessions, and the few operations the service needs (find a key by
// label, generate a key pair in the token, sign). PKCS#11 allows one operation at a time per
// session (v2.40 §5.7: C_SignInit then C_Sign on the same session), so each signature takes a
// session of its own from the pool; the login is the token's, not the session's (§5.6), and lasts
// while one session stays open, which `anchor` is for.
import { createPublicKey, randomBytes } from 'node:crypto';
import type * as Pkcs11Js from 'pkcs11js';
import { PkiError } from './errors.js';
import type { KeyKind } from './primitives.js';

type Pkcs11Module = typeof Pkcs11Js;
type Handle = Buffer;

/** Where the token is and how to log in to it. */
export interface Pkcs11TokenSettings {
  /** Path of the PKCS#11 module (a .so). */
  modulePath: string;
  /** The slot ID, or the token label (one of them). */
  slot?: number;
  tokenLabel?: string;
  /** The user PIN. */
  pin: string;
  /** Sessions open at most at once (concurrent signatures); default 8. */
  maxSessions?: number;
}

/** Which setting a failure to open the token is about, for a message naming it. */
export type Pkcs11Setting = 'module' | 'slot' | 'pin';

/** The token cannot be opened as configured; `setting` says which setting to look at. */
export class Pkcs11SetupError extends PkiError {
  constructor(
    readonly setting: Pkcs11Setting,
    message: string,
  ) {
    super('bad_material', message);
    this.name = 'Pkcs11SetupError';
  }
}

/** A private key in the token: its type, and for EC the curve's OID. */
export interface TokenKeyInfo {
  type: 'rsa' | 'ec';
  /** For EC keys: the named curve, as node names it (prime256v1, secp384r1). */
  curve?: string;
  /** subjectPublicKeyInfo DER, from the public key object under the same label. */
  spki: Buffer;
}

const CURVE_OIDS: Record<string, { der: string; name: string; jwk: string; size: number }> = {
  // DER of the OBJECT IDENTIFIER (CKA_EC_PARAMS holds the namedCurve choice of ECParameters).
  prime256v1: { der: '06082a8648ce3d030107', name: 'prime256v1', jwk: 'P-256', size: 32 },
  secp384r1: { der: '06052b81040022', name: 'secp384r1', jwk: 'P-384', size: 48 },
};

let loaded: Pkcs11Module | undefined;
async function pkcs11Module(): Promise<Pkcs11Module> {
  // Loaded only when a token is configured: the native addon is not needed otherwise.
  loaded ??= ((await import('pkcs11js')) as unknown as { default: Pkcs11Module }).default;
  return loaded;
}

/**
 * One loaded module per path in the process, shared by the tokens opened on it. C_Initialize and
 * C_Finalize are per process (v2.40 §5.4): finalising under another user of the module would end
 * its sessions too. A module once loaded stays loaded (the object is never collected, which would
 * dlclose it): a module unloaded while its exit handlers are registered crashes the process at exit.
 */
const modules = new Map<string, { lib: Pkcs11Js.PKCS11; users: number }>();

function initialised(p11: Pkcs11Module, modulePath: string): { lib: Pkcs11Js.PKCS11 } {
  let entry = modules.get(modulePath);
  if (!entry) {
    const lib = new p11.PKCS11();
    try {
      lib.load(modulePath);
    } catch (error) {
      throw new Pkcs11SetupError('module', `the PKCS#11 module ${modulePath} cannot be loaded (${(error as Error).message})`);
    }
    entry = { lib, users: 0 };
    modules.set(modulePath, entry);
  }
  if (entry.users === 0) {
    try {
      // OS locking: signatures run on libuv's threads (C_SignAsync), several at once (v2.40 §5.4).
      entry.lib.C_Initialize({ flags: p11.CKF_OS_LOCKING_OK });
    } catch (error) {
      if (errorCode(error) !== p11.CKR_CRYPTOKI_ALREADY_INITIALIZED) {
        throw new Pkcs11SetupError('module', `the PKCS#11 module ${modulePath} does not initialise (${(error as Error).message})`);
      }
    }
  }
  entry.users += 1;
  return entry;
}

function release(modulePath: string): void {
  const entry = modules.get(modulePath);
  if (!entry || entry.users === 0) {
    return;
  }
  entry.users -= 1;
  if (entry.users === 0) {
    try {
      entry.lib.C_Finalize();
    } catch {
      // Already finalised, or the token is gone.
    }
  }
}

/** Inputs of signatures under way on libuv's threads (see sign()). */
const inFlight = new Set<Buffer>();

const errorCode = (error: unknown): number | undefined => {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
};

export class Pkcs11Token {
  private idle: Handle[] = [];
  private open = 0;
  private waiters: { resolve: (session: Handle) => void; reject: (error: unknown) => void }[] = [];
  /** Sessions in use now, and those of them to close when they come back (opened before a reset). */
  private busy = new Set<Handle>();
  private stale = new Set<Handle>();
  private anchor: Handle | undefined;
  private slot: Handle | undefined;
  /** Private key handles by label, valid while the sessions are (dropped with them by reset). */
  private handles = new Map<string, Handle>();
  private closed = false;

  private constructor(
    private readonly p11: Pkcs11Module,
    private readonly lib: Pkcs11Js.PKCS11,
    private readonly settings: Pkcs11TokenSettings,
  ) {}

  /** Loads the module, finds the token and logs in; Pkcs11SetupError names what is wrong. */
  static async open(settings: Pkcs11TokenSettings): Promise<Pkcs11Token> {
    const p11 = await pkcs11Module();
    const lib = initialised(p11, settings.modulePath);
    const token = new Pkcs11Token(p11, lib.lib, settings);
    try {
      token.connect();
    } catch (error) {
      release(settings.modulePath);
      throw error;
    }
    return token;
  }

  /** What the token is, for messages: its label or slot. */
  get name(): string {
    return this.settings.tokenLabel !== undefined ? `token "${this.settings.tokenLabel}"` : `slot ${this.settings.slot}`;
  }

  /** Finds the slot, opens the anchor session and logs in. Throws Pkcs11SetupError. */
  private connect(): void {
    const { p11, lib, settings } = this;
    const slots = lib.C_GetSlotList(true);
    const slot = slots.find((s) => {
      if (settings.tokenLabel !== undefined) {
        return lib.C_GetTokenInfo(s).label.trim() === settings.tokenLabel;
      }
      return s.readUIntLE(0, Math.min(s.length, 6)) === settings.slot;
    });
    if (!slot) {
      throw new Pkcs11SetupError('slot', `no ${this.name} is present in the PKCS#11 module ${settings.modulePath}`);
    }
    const anchor = lib.C_OpenSession(slot, p11.CKF_SERIAL_SESSION | p11.CKF_RW_SESSION);
    try {
      lib.C_Login(anchor, p11.CKU_USER, settings.pin);
    } catch (error) {
      if (errorCode(error) !== p11.CKR_USER_ALREADY_LOGGED_IN) {
        lib.C_CloseSession(anchor);
        const code = errorCode(error);
        const why =
          code === p11.CKR_PIN_INCORRECT
            ? 'the PIN is wrong'
            : code === p11.CKR_PIN_LOCKED
              ? 'the PIN is locked'
              : (error as Error).message;
        throw new Pkcs11SetupError('pin', `cannot log in to ${this.name}: ${why}`);
      }
    }
    this.slot = slot;
    this.anchor = anchor;
  }

  /**
   * Drops this token's sessions (after a failure): the next use connects again. Sessions in use by
   * a signature under way on another thread are closed when they come back, not under it; and
   * only this object's sessions are closed (C_CloseAllSessions would close every session of the
   * process on that slot, another user's of the same module too).
   */
  private reset(): void {
    const closing = [...this.idle, ...(this.anchor ? [this.anchor] : [])];
    for (const session of this.busy) {
      this.stale.add(session);
    }
    this.slot = undefined;
    this.anchor = undefined;
    this.idle = [];
    this.open = this.busy.size;
    this.handles.clear();
    for (const session of closing) {
      this.closeSession(session);
    }
  }

  private closeSession(session: Handle): void {
    try {
      this.lib.C_CloseSession(session);
    } catch {
      // The token is gone: its sessions with it.
    }
  }

  private async take(): Promise<Handle> {
    if (!this.slot) {
      this.connect();
    }
    const idle = this.idle.pop();
    if (idle) {
      this.busy.add(idle);
      return idle;
    }
    if (this.open >= (this.settings.maxSessions ?? 8)) {
      return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
    }
    this.open += 1;
    try {
      const session = this.lib.C_OpenSession(this.slot!, this.p11.CKF_SERIAL_SESSION | this.p11.CKF_RW_SESSION);
      this.busy.add(session);
      return session;
    } catch (error) {
      this.open -= 1;
      throw error;
    }
  }

  private give(session: Handle): void {
    this.busy.delete(session);
    if (this.stale.delete(session)) {
      this.closeSession(session);
      this.open -= 1;
    } else {
      this.idle.push(session);
    }
    const waiter = this.waiters.shift();
    if (waiter) {
      // Through take() again: a session freed above, or a new one on a token connected again.
      this.take().then(waiter.resolve, waiter.reject);
    }
  }

  /**
   * Runs `work` on a session of its own. A failure drops the sessions (the token may be gone or
   * logged out; the next call logs in again) and is thrown as it came.
   */
  async withSession<T>(work: (session: Handle) => T | Promise<T>): Promise<T> {
    const session = await this.take().catch((error: unknown) => {
      this.reset();
      throw error;
    });
    try {
      return await work(session);
    } catch (error) {
      this.stale.add(session);
      this.reset();
      throw error;
    } finally {
      this.give(session);
    }
  }

  private findOne(session: Handle, objectClass: number, label: string): Handle | null {
    const { lib, p11 } = this;
    lib.C_FindObjectsInit(session, [
      { type: p11.CKA_CLASS, value: objectClass },
      { type: p11.CKA_LABEL, value: label },
    ]);
    try {
      const found = lib.C_FindObjects(session, 2);
      if (found.length > 1) {
        throw new PkiError('bad_material', `${this.name} holds more than one key labelled "${label}"`);
      }
      return found[0] ?? null;
    } finally {
      lib.C_FindObjectsFinal(session);
    }
  }

  /** The private key labelled `label`, or null. */
  findPrivateKey(session: Handle, label: string): Handle | null {
    return this.findOne(session, this.p11.CKO_PRIVATE_KEY, label);
  }

  /** Type, curve and public key of the key pair labelled `label`; undefined when no private key has that label. */
  async keyInfo(label: string): Promise<TokenKeyInfo | undefined> {
    return this.withSession((session) => {
      const { lib, p11 } = this;
      const privateKey = this.findPrivateKey(session, label);
      if (!privateKey) {
        return undefined;
      }
      const publicKey = this.findOne(session, p11.CKO_PUBLIC_KEY, label);
      if (!publicKey) {
        throw new PkiError('bad_material', `${this.name} has a private key labelled "${label}" but no public key object with that label`);
      }
      const [keyType] = lib.C_GetAttributeValue(session, privateKey, [{ type: p11.CKA_KEY_TYPE }]);
      const type = (keyType.value as Buffer).readUIntLE(0, Math.min((keyType.value as Buffer).length, 6));
      if (type === p11.CKK_RSA) {
        const [n, e] = lib.C_GetAttributeValue(session, publicKey, [{ type: p11.CKA_MODULUS }, { type: p11.CKA_PUBLIC_EXPONENT }]);
        const b64url = (value: unknown) => (value as Buffer).toString('base64url');
        const spki = createPublicKey({ key: { kty: 'RSA', n: b64url(n.value), e: b64url(e.value) }, format: 'jwk' }).export({
          type: 'spki',
          format: 'der',
        });
        return { type: 'rsa' as const, spki };
      }
      if (type === p11.CKK_EC) {
        const [params, point] = lib.C_GetAttributeValue(session, publicKey, [{ type: p11.CKA_EC_PARAMS }, { type: p11.CKA_EC_POINT }]);
        const curve = Object.values(CURVE_OIDS).find((c) => c.der === (params.value as Buffer).toString('hex'));
        if (!curve) {
          throw new PkiError('unsupported_key', `the key labelled "${label}" is on a curve the service does not sign with (P-256, P-384)`);
        }
        // CKA_EC_POINT is the DER OCTET STRING of the uncompressed point 04 || x || y (v2.40 §2.3.3);
        // some modules give the bare point: told apart by its length.
        const raw = point.value as Buffer;
        const size = curve.size;
        const q = raw.length === 2 * size + 1 ? raw : raw.subarray(raw[1] & 0x80 ? 2 + (raw[1] & 0x7f) : 2);
        if (q.length !== 2 * size + 1 || q[0] !== 0x04) {
          throw new PkiError('unsupported_key', `the public key labelled "${label}" is not an uncompressed EC point`);
        }
        const spki = createPublicKey({
          key: {
            kty: 'EC',
            crv: curve.jwk,
            x: q.subarray(1, 1 + size).toString('base64url'),
            y: q.subarray(1 + size).toString('base64url'),
          },
          format: 'jwk',
        }).export({ type: 'spki', format: 'der' });
        return { type: 'ec' as const, curve: curve.name, spki };
      }
      throw new PkiError('unsupported_key', `the key labelled "${label}" is neither RSA nor EC`);
    });
  }

  /**
   * Generates a key pair in the token under `label`: the private key sensitive and never
   * extractable (v2.40 §4.9: CKA_SENSITIVE, CKA_EXTRACTABLE false), so it cannot leave the token.
   * Synchronous on purpose: pkcs11js 2.1's C_GenerateKeyPairAsync hands its worker thread templates
   * that are freed when the call returns. It runs once per key, at the PKI's first start.
   */
  async generate(label: string, kind: KeyKind): Promise<void> {
    const { p11 } = this;
    const id = randomBytes(16);
    const common = [
      { type: p11.CKA_TOKEN, value: true },
      { type: p11.CKA_LABEL, value: label },
      { type: p11.CKA_ID, value: id },
    ];
    const privateTemplate = [
      ...common,
      { type: p11.CKA_CLASS, value: p11.CKO_PRIVATE_KEY },
      { type: p11.CKA_PRIVATE, value: true },
      { type: p11.CKA_SENSITIVE, value: true },
      { type: p11.CKA_EXTRACTABLE, value: false },
      { type: p11.CKA_SIGN, value: true },
    ];
    const publicCommon = [...common, { type: p11.CKA_CLASS, value: p11.CKO_PUBLIC_KEY }, { type: p11.CKA_VERIFY, value: true }];
    await this.withSession((session) =>
      kind === 'ecdsa-p256'
        ? this.lib.C_GenerateKeyPair(
            session,
            { mechanism: p11.CKM_EC_KEY_PAIR_GEN },
            [...publicCommon, { type: p11.CKA_EC_PARAMS, value: Buffer.from(CURVE_OIDS.prime256v1.der, 'hex') }],
            [...privateTemplate, { type: p11.CKA_KEY_TYPE, value: p11.CKK_EC }],
          )
        : this.lib.C_GenerateKeyPair(
            session,
            { mechanism: p11.CKM_RSA_PKCS_KEY_PAIR_GEN },
            [
              ...publicCommon,
              { type: p11.CKA_MODULUS_BITS, value: kind === 'rsa-2048' ? 2048 : 3072 },
              { type: p11.CKA_PUBLIC_EXPONENT, value: Buffer.from([1, 0, 1]) },
            ],
            [...privateTemplate, { type: p11.CKA_KEY_TYPE, value: p11.CKK_RSA }],
          ),
    );
  }

  /**
   * Signs `input` with the private key labelled `label`: CKM_RSA_PKCS over a DigestInfo, or
   * CKM_ECDSA over a digest (the hash is computed in the process; only the digest goes to the token).
   */
  async sign(label: string, mechanism: 'rsa-pkcs' | 'ecdsa', input: Buffer): Promise<Buffer> {
    return this.withSession(async (session) => {
      const key = this.handles.get(label) ?? this.findPrivateKey(session, label);
      if (!key) {
        throw new PkiError('key_unavailable', `${this.name} has no private key labelled "${label}"`);
      }
      this.handles.set(label, key);
      this.lib.C_SignInit(session, { mechanism: mechanism === 'ecdsa' ? this.p11.CKM_ECDSA : this.p11.CKM_RSA_PKCS }, key);
      // pkcs11js's worker thread reads the input by its address without holding the Buffer: were
      // it collected meanwhile, the module would read freed memory. Held here until the answer.
      inFlight.add(input);
      try {
        return await this.lib.C_SignAsync(session, input, Buffer.alloc(1024));
      } finally {
        inFlight.delete(input);
      }
    });
  }

  /** Throws unless the private key labelled `label` can be found now (logged in, token present). */
  async probe(label: string): Promise<void> {
    let found: Handle | null;
    try {
      if (!this.anchor) {
        this.connect();
      }
      // On the session that holds the login: a find is synchronous, so nothing else runs on it meanwhile.
      found = this.findPrivateKey(this.anchor!, label);
    } catch (error) {
      this.reset();
      throw error;
    }
    if (!found) {
      throw new PkiError('key_unavailable', `${this.name} has no private key labelled "${label}"`);
    }
  }

  /** Closes this token's sessions; the module is finalised when no token of the process uses it. */
  close(): void {
    if (this.closed) {
      return;
    }
    this.closed = true;
    this.reset();
    release(this.settings.modulePath);
  }
}
