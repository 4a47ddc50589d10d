/**
 * Per-run accounting of retained items (seq and size) so a store can tell, on each append, which
 * oldest seqs fall out of the retention limits without asking its database.
 */
export class RetentionWindow {
  private seqs: number[] = [];
  private sizes: number[] = [];
  private head = 0;
  private chars = 0;

  constructor(
    private readonly maxItems: number,
    private readonly maxChars: number,
  ) {}

  /** Adds an item; returns the smallest seq still retained afterwards. */
  add(seq: number, size: number): number {
    this.seqs.push(seq);
    this.sizes.push(size);
    this.chars += size;
    while (this.count > this.maxItems || (this.chars > this.maxChars && this.count > 1)) {
      this.chars -= this.sizes[this.head]!;
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.seqs.length) {
      this.seqs = this.seqs.slice(this.head);
      this.sizes = this.sizes.slice(this.head);
      this.head = 0;
    }
    return this.seqs[this.head]!;
  }

  private get count(): number {
    return this.seqs.length - this.head;
  }
}
