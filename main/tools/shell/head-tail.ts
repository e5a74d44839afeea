/** Keeps the first and last half of the limit, so memory stays bounded however much a command prints. */
export class HeadTail {
  private head = '';
  private tail = '';
  private total = 0;
  private readonly half: number;

  constructor(private limit: number) {
    this.half = Math.floor(limit / 2);
  }

  push(text: string): void {
    if (!text) return;
    this.total += text.length;
    if (this.head.length < this.limit) {
      const room = this.limit - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text) {
      this.tail += text;
      if (this.tail.length > this.limit * 2) this.tail = this.tail.slice(-this.limit);
    }
  }

  /** Counts characters that were never read (the middle of a long log, skipped on disk). */
  skip(chars: number): void {
    this.total += chars;
  }

  result(): { text: string; dropped: number } {
    if (this.total <= this.limit) return { text: this.head + this.tail, dropped: 0 };
    const start = this.head.slice(0, this.half);
    const combined = this.head.slice(this.half) + this.tail;
    const end = combined.slice(-(this.limit - this.half));
    const dropped = this.total - start.length - end.length;
    return { text: `${start}\n\n[... ${dropped} characters dropped from the middle ...]\n\n${end}`, dropped };
  }
}
