import { thumbnailDifference } from '../picture/gray';

/**
 * Tells whether a sample differs enough from the last analysed one to be worth API calls: mean
 * absolute difference of two small grey thumbnails, on the 0..255 scale.
 */
export class ChangeGate {
  readonly #threshold: number;
  #reference?: Uint8Array;

  /** threshold: mean absolute difference (0..255) above which a sample counts as changed; 0 lets every sample through. */
  constructor(threshold: number) {
    this.#threshold = threshold;
  }

  /** True when `thumb` differs from the reference by more than the threshold (always true at first). */
  changed(thumb: Uint8Array): boolean {
    const ref = this.#reference;
    if (!ref || ref.length !== thumb.length || this.#threshold <= 0) return true;
    return thumbnailDifference(ref, thumb) > this.#threshold;
  }

  /** Makes `thumb` the reference: call it once the sample was analysed. */
  accept(thumb: Uint8Array): void {
    this.#reference = thumb;
  }

  /** Forget the reference: the next sample passes. */
  reset(): void {
    this.#reference = undefined;
  }
}
