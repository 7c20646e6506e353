import { InputError } from '../errors';
import type { Location } from '../vision/types';

/** A rectangle to draw, with an optional label above it. */
export interface Box {
  location: Location;
  label?: string;
  /** A CSS colour: #rgb, #rrggbb, #rrggbbaa or a name such as 'red' (default lime green). */
  color?: string;
}

const DEFAULT_COLOR = '#00e676';
const COLOR = /^(#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6}|#[0-9a-fA-F]{8}|[a-zA-Z]{1,30})$/;
const MAX_LABEL = 100;
const MAX_BOXES = 1000;

/** An SVG the size of the picture with the boxes on it, ready for sharp's composite. */
export function boxesSvg(width: number, height: number, boxes: readonly Box[]): Buffer {
  if (boxes.length > MAX_BOXES) throw new InputError('boxes', `at most ${MAX_BOXES} boxes can be drawn (got ${boxes.length})`, `${MAX_BOXES} boxes`);
  // Lines and text grow with the picture so they stay visible on large frames and small on thumbnails.
  const stroke = Math.max(3, Math.round(Math.min(width, height) / 160));
  const font = Math.max(12, Math.round(Math.min(width, height) / 30));
  const parts: string[] = [];
  boxes.forEach((box, i) => {
    const color = box.color ?? DEFAULT_COLOR;
    if (!COLOR.test(color)) throw new InputError(`boxes[${i}].color`, `boxes[${i}].color ${JSON.stringify(color.slice(0, 40))} is not a colour`, '#rgb, #rrggbb, #rrggbbaa or a colour name');
    const { left, top, right, bottom } = box.location;
    if (![left, top, right, bottom].every(Number.isFinite)) {
      throw new InputError(`boxes[${i}].location`, `boxes[${i}].location needs finite left, top, right and bottom`, 'finite numbers');
    }
    const x = Math.min(left, right);
    const y = Math.min(top, bottom);
    const w = Math.abs(right - left);
    const h = Math.abs(bottom - top);
    parts.push(`<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="none" stroke="${color}" stroke-width="${stroke}"/>`);
    if (box.label) {
      const text = escapeXml(box.label.slice(0, MAX_LABEL));
      // Above the box when there is room, else inside its top edge.
      const ty = y - stroke >= font + 4 ? y - stroke - 4 : y + font + stroke;
      parts.push(
        `<text x="${x}" y="${ty}" font-family="sans-serif" font-size="${font}" fill="${color}" stroke="black" stroke-width="${Math.max(1, font / 12)}" paint-order="stroke">${text}</text>`,
      );
    }
  });
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${parts.join('')}</svg>`);
}

// XML 1.0 allows no control characters but tab and newlines: they are dropped, the rest escaped.
function escapeXml(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) continue;
    out += ch === '<' || ch === '>' || ch === '&' || ch === '"' || ch === "'" ? `&#${c};` : ch;
  }
  return out;
}
