/**
 * One batch write at a time for a background writer: a flush that arrives while one runs waits
 * for it, then writes what is left (if anything). Concurrent flushes never write the same rows twice.
 */
export class OneWriteAtATime {
  private running: Promise<void> | undefined;

  async run(hasWork: () => boolean, write: () => Promise<void>): Promise<void> {
    while (this.running) await this.running;
    if (!hasWork()) return;
    this.running = write().finally(() => {
      this.running = undefined;
    });
    await this.running;
  }
}
