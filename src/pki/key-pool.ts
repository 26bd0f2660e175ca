// Signer key pairs generated ahead of time. Every signature gets a fresh key (signer-certificate.ts),
// and for RSA-2048 finding two 1024-bit primes is the slowest step of a signature by far: on a
// small server 150–200 ms at the median and over 500 ms at p99, more than everything else the
// signature does put together (docs/performance.md, scenario F). Signatures arrive one at a time,
// when a person presses "Sign", so the search can be done before it is needed: pairs are kept ready
// and the pool refills in the background as each is taken.
//
// What does not change: each pair is handed out once, removed from the pool as it is taken, and
// never stored or reused; the private half stays a non-extractable CryptoKey in this process's
// memory, as a key generated at signing time does. It waits there longer (until a signature takes
// it, hours on a quiet server), next to the issuing CA's key, which is in the same memory anyway.
// Reusing a signer's key across documents was considered and refused (docs/performance.md, "Signer
// keys: the decision"): a key kept for reuse is a key that can be stolen and sign again.
//
// A pool absorbs bursts; it does not change what a sustained rate costs: every signature still pays
// for one key, before or during it. Past the pool's depth, RSA-2048 signing is bounded by the CPU
// of key generation (about five keys a second per core); ECDSA P-256 costs a thousandth of that.
// So the key type is a choice per account (SignerKeyPools keeps one pool per type), and the depth
// and the number of refill threads are the operator's (SELLO_SIGNER_KEY_POOL, _THREADS).
//
// Pure, as pki/ must be: the generator is a parameter (generateSignerKeyPair by default), and the
// owner (the runtime) starts and stops the pool. WebCrypto generates on the libuv thread pool, so
// the event loop stays free while a refill runs; it is CPU all the same, and by default one
// generation at a time: one core is what a refill may take from the signatures being served (more,
// `parallel`, on a machine with cores to spare). It can also wait a moment after a take
// (refillDelayMs), so as not to run beside the very signature that took the key: on a two-core
// machine that made the signature itself about 9 ms slower. The timer is unref'd and cleared at
// stop(); a generation already running then finishes on its thread (one key, well under a second)
// and its result is dropped, so a stopped pool holds no key and keeps nothing alive.
import { generateKeyPair } from './primitives.js';
import {
  DEFAULT_SIGNER_KEY,
  SIGNER_KEY_ALGORITHMS,
  SIGNER_KEY_POOL_MAX,
  SIGNER_KEY_THREADS_MAX,
  type SignerKeyAlgorithm,
} from './signer-defaults.js';

export { SIGNER_KEY_POOL_SIZE } from './signer-defaults.js';

/**
 * The service's refill waits this long after a take: longer than one signature takes on a small
 * server (40–80 ms), short beside the seconds between a person's signatures.
 */
export const SIGNER_KEY_REFILL_DELAY_MS = 250;

/** Where issueSignerCertificate takes its one-time key pair from. */
export interface SignerKeySource {
  /**
   * A key pair nobody else has been or will be given, of `algorithm` (a source of one type may
   * ignore it: issueSignerCertificate checks the pair it gets).
   */
  take(algorithm: SignerKeyAlgorithm): Promise<CryptoKeyPair>;
}

export interface KeyPairPoolOptions {
  /** Pairs kept ready; 1 to SIGNER_KEY_POOL_MAX. */
  size: number;
  /** Generations a refill runs at once, 1 to SIGNER_KEY_THREADS_MAX (default 1). */
  parallel?: number;
  /** Makes one pair; default: RSA-2048, non-extractable (the signer-certificate default). */
  generate?: () => Promise<CryptoKeyPair>;
  /** Told when a background generation fails (the next take() generates on demand and retries the refill). */
  onError?: (err: unknown) => void;
  /** How long the refill waits after a take (default 0: at once); the first fill never waits. */
  refillDelayMs?: number;
}

/** The signer-certificate default: RSA-2048, the private key non-extractable. */
export const generateSignerKeyPair = (): Promise<CryptoKeyPair> => generateKeyPair('rsa-2048', false);

/** A small in-memory pool of one-time key pairs, refilled in the background. */
export class KeyPairPool implements SignerKeySource {
  readonly size: number;
  private readonly generate: () => Promise<CryptoKeyPair>;
  private readonly onError: (err: unknown) => void;
  private readonly ready: CryptoKeyPair[] = [];
  readonly parallel: number;
  private state: 'idle' | 'running' | 'stopped' = 'idle';
  /** Generations under way. */
  private filling = 0;
  private readonly refillDelayMs: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private waiters: (() => void)[] = [];

  constructor(options: KeyPairPoolOptions) {
    if (!Number.isInteger(options.size) || options.size < 1 || options.size > SIGNER_KEY_POOL_MAX) {
      throw new RangeError(`the key pool size must be an integer from 1 to ${SIGNER_KEY_POOL_MAX}`);
    }
    const parallel = options.parallel ?? 1;
    if (!Number.isInteger(parallel) || parallel < 1 || parallel > SIGNER_KEY_THREADS_MAX) {
      throw new RangeError(`the key pool's parallel generations must be an integer from 1 to ${SIGNER_KEY_THREADS_MAX}`);
    }
    this.size = options.size;
    this.parallel = parallel;
    this.generate = options.generate ?? generateSignerKeyPair;
    this.onError = options.onError ?? (() => undefined);
    this.refillDelayMs = Math.max(0, options.refillDelayMs ?? 0);
  }

  /** Pairs ready to be taken now. */
  get available(): number {
    return this.ready.length;
  }

  /** Starts filling the pool in the background. Idempotent; a stopped pool stays stopped. */
  start(): void {
    if (this.state === 'idle') {
      this.state = 'running';
      this.refill(0);
    }
  }

  /**
   * A ready pair, removed from the pool (the refill then starts again), or, when none is ready,
   * one generated now for this caller alone. Works on a pool never started or already stopped:
   * every pair is then generated on demand.
   */
  async take(): Promise<CryptoKeyPair> {
    const pair = this.ready.shift();
    this.refill(this.refillDelayMs);
    return pair ?? this.generate();
  }

  /**
   * Resolves once the pool is full, stopped, or its refill has failed; a refill waiting for its
   * delay starts at once. For benchmarks and tests, never on a request's path.
   */
  whenFull(): Promise<void> {
    if (this.state !== 'running' || (this.filling === 0 && this.ready.length >= this.size)) {
      return Promise.resolve();
    }
    this.refill(0);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Drops every ready pair and generates no more. */
  stop(): void {
    this.state = 'stopped';
    clearTimeout(this.timer);
    this.timer = undefined;
    this.ready.length = 0;
    this.release();
  }

  private release(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) {
      resolve();
    }
  }

  private refill(delayMs: number): void {
    if (this.state !== 'running' || this.ready.length >= this.size) {
      return;
    }
    // Lanes to add: up to `parallel` at once, never more than the pairs missing.
    const lanes = Math.min(this.parallel, this.size - this.ready.length) - this.filling;
    if (lanes <= 0) {
      return;
    }
    if (delayMs > 0 && this.filling === 0) {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.refill(0);
      }, delayMs).unref();
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.filling += lanes;
    for (let i = 0; i < lanes; i++) {
      void this.fill();
    }
  }

  /**
   * One lane of a refill: generates while pairs are missing beyond those the other lanes are making.
   * Never rejects: a failure goes to onError, and the next take() starts the refill again.
   */
  private async fill(): Promise<void> {
    try {
      while (this.state === 'running' && this.ready.length + this.filling - 1 < this.size) {
        const pair = await this.generate();
        if (this.state !== 'running') {
          return; // stopped meanwhile: the pair is dropped, never handed out
        }
        this.ready.push(pair);
      }
    } catch (err) {
      try {
        this.onError(err);
      } catch {
        // a failing reporter must not turn into an unhandled rejection
      }
    } finally {
      this.filling--;
      if (this.filling === 0) {
        this.release();
      }
    }
  }
}

export interface SignerKeyPoolsOptions {
  /** The operator's key type: its pool starts filling at start(); the other's at its first take. */
  defaultAlgorithm?: SignerKeyAlgorithm;
  /** Pairs kept ready per key type. */
  size: number;
  parallel?: number;
  refillDelayMs?: number;
  /** Makes one pair of a type; default: generateKeyPair(algorithm, non-extractable). */
  generate?: (algorithm: SignerKeyAlgorithm) => Promise<CryptoKeyPair>;
  onError?: (err: unknown, algorithm: SignerKeyAlgorithm) => void;
}

/**
 * One pool per signer key type, for a service whose accounts choose theirs. The pool of a type no
 * account uses costs nothing: it starts filling only when a signature first asks for that type (the
 * operator's type starts at start(), so a fresh service is ready for its first signatures).
 */
export class SignerKeyPools implements SignerKeySource {
  readonly defaultAlgorithm: SignerKeyAlgorithm;
  private readonly pools: Record<SignerKeyAlgorithm, KeyPairPool>;
  private started = false;

  constructor(options: SignerKeyPoolsOptions) {
    this.defaultAlgorithm = options.defaultAlgorithm ?? DEFAULT_SIGNER_KEY;
    const generate = options.generate ?? ((algorithm) => generateKeyPair(algorithm, false));
    const make = (algorithm: SignerKeyAlgorithm) =>
      new KeyPairPool({
        size: options.size,
        parallel: options.parallel,
        refillDelayMs: options.refillDelayMs,
        generate: () => generate(algorithm),
        onError: (err) => options.onError?.(err, algorithm),
      });
    this.pools = Object.fromEntries(SIGNER_KEY_ALGORITHMS.map((a) => [a, make(a)])) as Record<SignerKeyAlgorithm, KeyPairPool>;
  }

  /** The pool of one key type (for benchmarks and tests). */
  pool(algorithm: SignerKeyAlgorithm): KeyPairPool {
    return this.pools[algorithm];
  }

  start(): void {
    this.started = true;
    this.pools[this.defaultAlgorithm].start();
  }

  take(algorithm: SignerKeyAlgorithm): Promise<CryptoKeyPair> {
    const pool = this.pools[algorithm];
    if (!pool) {
      return Promise.reject(new RangeError(`no signer key pool for ${String(algorithm)}`));
    }
    if (this.started) {
      pool.start(); // idempotent; a stopped pool stays stopped
    }
    return pool.take();
  }

  stop(): void {
    for (const pool of Object.values(this.pools)) {
      pool.stop();
    }
  }
}
