import { InputError } from '../errors';
import type { Location } from '../vision/types';
import type { RawPixels } from './convert';

/** A rectangle to draw, with an optional label above it. */
export interface Box {
  location: Location;
  label?: string;
  /** #rgb or #rrggbb, or one of the names in COLOR_NAMES (default a bright green). */
  color?: string;
}

/** Colour names accepted besides hex. */
export const COLOR_NAMES: Readonly<Record<string, string>> = {
  red: '#ff0000', green: '#00c853', lime: '#00ff00', blue: '#0000ff', yellow: '#ffff00', orange: '#ff9100',
  cyan: '#00ffff', magenta: '#ff00ff', purple: '#9c27b0', white: '#ffffff', black: '#000000', gray: '#808080', grey: '#808080',
};

const DEFAULT_COLOR = '#00e676';
const MAX_LABEL = 100;
const MAX_BOXES = 1000;

/** One label to composite: a small SVG and where it goes. */
export interface LabelOverlay {
  input: Buffer;
  left: number;
  top: number;
}

/**
 * Draws the boxes' outlines straight into the pixels (a full-frame SVG costs ~10 ms to render; this
 * costs microseconds) and returns the labels as small SVGs for sharp to composite. `withText` false
 * leaves labels out: sharp's wasm build has no fonts, and an empty label band helps nobody.
 */
export function drawOutlines(raw: RawPixels, boxes: readonly Box[], withText = true): LabelOverlay[] {
  if (boxes.length > MAX_BOXES) throw new InputError('invalid_input', `at most ${MAX_BOXES} boxes can be drawn (got ${boxes.length})`, { field: 'boxes', limit: `${MAX_BOXES} boxes` });
  const { width, height } = raw;
  // Lines and text grow with the picture so they stay visible on large frames and small on thumbnails.
  const stroke = Math.max(3, Math.round(Math.min(width, height) / 160));
  const font = Math.max(12, Math.round(Math.min(width, height) / 30));
  const labels: LabelOverlay[] = [];
  boxes.forEach((box, i) => {
    const hex = parseColor(box.color ?? DEFAULT_COLOR, `boxes[${i}].color`);
    const { left, top, right, bottom } = box.location ?? {};
    if (![left, top, right, bottom].every(Number.isFinite)) {
      throw new InputError('invalid_input', `boxes[${i}].location needs finite left, top, right and bottom`, { field: `boxes[${i}].location`, limit: 'finite numbers' });
    }
    const x0 = Math.round(Math.min(left, right));
    const y0 = Math.round(Math.min(top, bottom));
    const x1 = Math.round(Math.max(left, right));
    const y1 = Math.round(Math.max(top, bottom));
    // The line is centred on the box's edge, as an SVG stroke would be.
    const h = stroke >> 1;
    fill(raw, x0 - h, y0 - h, x1 + stroke - h, y0 + stroke - h, hex);
    fill(raw, x0 - h, y1 - h, x1 + stroke - h, y1 + stroke - h, hex);
    fill(raw, x0 - h, y0 - h, x0 + stroke - h, y1 + stroke - h, hex);
    fill(raw, x1 - h, y0 - h, x1 + stroke - h, y1 + stroke - h, hex);
    if (box.label && withText) {
      const label = labelSvg(box.label.slice(0, MAX_LABEL), font, colorHex(hex), width);
      const above = y0 - h - label.height;
      const at = { left: clamp(x0 - h, 0, Math.max(0, width - label.width)), top: above >= 0 ? above : clamp(y0 + stroke, 0, Math.max(0, height - label.height)) };
      if (label.width <= width && label.height <= height) labels.push({ input: label.svg, ...at });
    }
  });
  return labels;
}

function fill(raw: RawPixels, xa: number, ya: number, xb: number, yb: number, [r, g, b]: [number, number, number]): void {
  const { width, height, channels, data } = raw;
  const left = clamp(xa, 0, width);
  const right = clamp(xb, 0, width);
  const top = clamp(ya, 0, height);
  const bottom = clamp(yb, 0, height);
  for (let y = top; y < bottom; y++) {
    let o = (y * width + left) * channels;
    for (let x = left; x < right; x++, o += channels) {
      data[o] = r;
      data[o + 1] = g;
      data[o + 2] = b;
      if (channels === 4) data[o + 3] = 255;
    }
  }
}

// A label: text on a dark band, so it reads on any background. Its width is an estimate (no font
// metrics without rendering); the band is generous rather than cutting letters off.
function labelSvg(text: string, font: number, color: string, maxWidth: number): { svg: Buffer; width: number; height: number } {
  const pad = Math.round(font / 4);
  const width = Math.min(maxWidth, Math.ceil([...text].length * font * 0.62) + 2 * pad);
  const height = Math.round(font * 1.35);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<rect width="100%" height="100%" fill="#000" fill-opacity="0.6"/>` +
    `<text x="${pad}" y="${Math.round(font * 1.02)}" font-family="sans-serif" font-size="${font}" fill="${color}">${escapeXml(text)}</text></svg>`;
  return { svg: Buffer.from(svg), width, height };
}

function parseColor(color: string, field: string): [number, number, number] {
  const named = COLOR_NAMES[color.toLowerCase()];
  const hex = named ?? color;
  let m = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(hex);
  if (m) return [m[1], m[2], m[3]].map((c) => parseInt(c + c, 16)) as [number, number, number];
  m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (m) return [m[1], m[2], m[3]].map((c) => parseInt(c, 16)) as [number, number, number];
  throw new InputError('invalid_input', `${field} ${JSON.stringify(String(color).slice(0, 40))} is not a colour`, { field, limit: `#rgb, #rrggbb or one of ${Object.keys(COLOR_NAMES).join(', ')}` });
}

function colorHex([r, g, b]: [number, number, number]): string {
  return `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}

function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
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
