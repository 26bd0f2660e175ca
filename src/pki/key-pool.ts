// Signer key pairs generated ahead of time. Every signature gets a fresh RSA-2048 key
// (signer-certificate.ts), and finding two 1024-bit primes is the slowest step of a signature by
// far: on a small server 150–200 ms at the median and over 500 ms at p99, more than everything
// else the signature does put together (docs/performance.md, scenario F). Signatures arrive one at
// a time, when a person presses "Sign", so the search can be done before it is needed: a few pairs
// are kept ready and the pool refills in the background as each is taken.
//
// What does not change: each pair is handed out once, removed from the pool as it is taken, and
// never stored or reused; the private half stays a non-extractable CryptoKey in this process's
// memory, as a key generated at signing time does. It waits there longer (until a signature takes
// it, hours on a quiet server), next to the issuing CA's key, which is in the same memory anyway.
//
// Pure, as pki/ must be: the generator is a parameter (generateSignerKeyPair by default), and the
// owner (the runtime) starts and stops the pool. The refill runs one generation at a time: WebCrypto
// generates on the libuv thread pool, so the event loop stays free, but it is CPU all the same, and
// one core is what a refill may take from the signatures being served. It can also wait a moment
// after a take (refillDelayMs), so as not to run beside the very signature that took the key: on a
// two-core machine that made the signature itself about 9 ms slower. The timer is unref'd and cleared
// at stop(); a generation already running then finishes on its thread (one key, well under a
// second) and its result is dropped, so a stopped pool holds no key and keeps nothing alive.
import { generateKeyPair } from './primitives.js';

/**
 * Pairs the service keeps ready. Eight covers a set of documents signed in one visit; refilling
 * them takes one core for about 1.5 s on a small server.
 */
export const SIGNER_KEY_POOL_SIZE = 8;

/**
 * The service's refill waits this long after a take: longer than one signature takes on a small
 * server (40–80 ms), short beside the seconds between a person's signatures.
 */
export const SIGNER_KEY_REFILL_DELAY_MS = 250;

/** Where issueSignerCertificate takes its one-time key pair from. */
export interface SignerKeySource {
  /** A key pair nobody else has been or will be given. */
  take(): Promise<CryptoKeyPair>;
}

export interface KeyPairPoolOptions {
  /** Pairs kept ready; 1 to 64. */
  size: number;
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
  private state: 'idle' | 'running' | 'stopped' = 'idle';
  private filling = false;
  private readonly refillDelayMs: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private waiters: (() => void)[] = [];

  constructor(options: KeyPairPoolOptions) {
    if (!Number.isInteger(options.size) || options.size < 1 || options.size > 64) {
      throw new RangeError('the key pool size must be an integer from 1 to 64');
    }
    this.size = options.size;
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
    if (this.state !== 'running' || (!this.filling && this.ready.length >= this.size)) {
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
    if (this.filling || this.state !== 'running' || this.ready.length >= this.size) {
      return;
    }
    if (delayMs > 0) {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.refill(0);
      }, delayMs).unref();
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.filling = true;
    void this.fill();
  }

  /** Never rejects: a failure goes to onError, and the next take() starts the refill again. */
  private async fill(): Promise<void> {
    try {
      while (this.state === 'running' && this.ready.length < this.size) {
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
      this.filling = false;
      this.release();
    }
  }
}
