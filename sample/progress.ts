/** ASCII progress bars, one per lane, redrawn in place on a terminal and as plain lines otherwise. */
export class ProgressBars {
  private drawnLines = 0;
  private lastPlain = '';
  private readonly width = 30;
  private readonly nameWidth: number;
  private readonly countWidth: number;

  constructor(
    private readonly title: string,
    private readonly totals: ReadonlyMap<string, number>,
    private readonly out: NodeJS.WriteStream = process.stdout,
  ) {
    this.nameWidth = Math.max(...[...totals.keys()].map((n) => n.length));
    this.countWidth = Math.max(...[...totals.values()].map((n) => String(n).length));
  }

  /** Draws the bars for `done` (per lane) after `elapsedMs`. */
  draw(done: ReadonlyMap<string, number>, elapsedMs: number): void {
    const seconds = (elapsedMs / 1000).toFixed(1).padStart(5);
    if (!this.out.isTTY) {
      const parts = [...this.totals].map(([name, total]) => `${name} ${done.get(name) ?? 0}/${total}`).join('  ');
      if (parts !== this.lastPlain) this.out.write(`  ${seconds} s  ${parts}\n`);
      this.lastPlain = parts;
      return;
    }
    const lines = [`  ${this.title}  ${seconds} s`, ...[...this.totals].map(([name, total]) => this.bar(name, done.get(name) ?? 0, total))];
    // NOTE: move back over our own previous frame only, so what was printed before stays in the scrollback.
    let frame = this.drawnLines > 0 ? `\x1b[${this.drawnLines}F` : '';
    for (const line of lines) frame += `\x1b[2K${line}\n`;
    this.out.write(frame);
    this.drawnLines = lines.length;
  }

  private bar(name: string, done: number, total: number): string {
    const filled = total > 0 ? Math.round((done / total) * this.width) : 0;
    const bar = '#'.repeat(filled) + '.'.repeat(this.width - filled);
    return `    ${name.padEnd(this.nameWidth)} [${bar}] ${String(done).padStart(this.countWidth)}/${total}`;
  }
}
