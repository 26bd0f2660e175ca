// What the watch has started or made (processes, a database, temporary directories), released in
// the reverse order, once, whether the watch ends by passing, failing, an error or its time limit:
// a CI machine must not be left with a PostgreSQL running or a data directory behind.
export class Resources {
  private readonly held: { name: string; release: () => Promise<void> }[] = [];
  private releasing: Promise<void> | undefined;
  private released = false;

  /** Holds a resource; one acquired after the release began (work still running past the time limit) goes at once. */
  add(name: string, release: () => Promise<void>): void {
    this.held.push({ name, release });
    if (this.released) {
      this.releasing = this.releasing!.then(() => this.drain());
    }
  }

  /** Releases everything held, the last added first; a release that fails is reported, and the rest still run. */
  releaseAll(): Promise<void> {
    this.released = true;
    this.releasing ??= this.drain();
    return this.releasing;
  }

  private async drain(): Promise<void> {
    while (this.held.length > 0) {
      const { name, release } = this.held.pop()!;
      await release().catch((err: unknown) => console.error(`watch: stopping ${name} failed:`, err));
    }
  }
}
