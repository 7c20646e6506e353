/** Box arithmetic shared by the tracker, the crop rule and the snapshot boxes. */

/** A rectangle in frame pixels; right and bottom exclusive (the vision API's shape). */
export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** Width of a box (0 when empty). */
export function boxWidth(b: Box): number {
  return Math.max(0, b.right - b.left);
}

/** Height of a box (0 when empty). */
export function boxHeight(b: Box): number {
  return Math.max(0, b.bottom - b.top);
}

/** Area of a box in square pixels. */
export function boxArea(b: Box): number {
  return boxWidth(b) * boxHeight(b);
}

/** Intersection over union of two boxes, 0..1. */
export function iou(a: Box, b: Box): number {
  const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
  const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  return inter / (boxArea(a) + boxArea(b) - inter);
}

/** The box clipped to a width x height frame, with integer edges. */
export function clipBox(b: Box, width: number, height: number): Box {
  return {
    left: Math.max(0, Math.min(width, Math.floor(b.left))),
    top: Math.max(0, Math.min(height, Math.floor(b.top))),
    right: Math.max(0, Math.min(width, Math.ceil(b.right))),
    bottom: Math.max(0, Math.min(height, Math.ceil(b.bottom))),
  };
}
