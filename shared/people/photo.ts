import type { Picture } from '../decode';
import { ClientError } from '../errors';
import { downloadImage, MAX_IMAGE_BYTES, resolveImage, type ImageInput } from '../image';
import { cropToJpeg } from '../picture';
import { sharpLib } from '../picture/sharp';
import type { VisionApi } from '../vision';
import type { DetectedFace } from '../vision/types';
import { API_FACE_MAX, API_FACE_MIN, planCrop } from '../watch/crop-geometry';
import { boxHeight, boxWidth } from '../watch/geometry';
import { faceQuality } from '../watch/quality';
import type { PhotoQuality } from './types';

/** How long a photo given by URL may take to download. */
const DOWNLOAD_TIMEOUT_MS = 30_000;
/** Below these the face is worth a warning: blurred, dark, or turned away (see quality.ts for the scales). */
const POOR_SHARPNESS = 0.15;
const POOR_BRIGHTNESS = 0.15;

/** A photo ready to enrol: the image to send (the photo, or a crop that brings the face into 120..280 px) and its face's quality. */
export type PreparedPhoto = { ok: true; image: Buffer; quality: PhotoQuality; warning?: string } | { ok: false; reason: string; code: string };

/**
 * Makes a photo of one person ready for the collection: finds its face (detect_faces; with several
 * the largest, with a warning), brings a face larger than the service's 120..280 px rule into it with
 * the watcher's crop, refuses a smaller one, and measures its quality. API failures other than
 * "no face" are thrown; `field` names the photo in errors.
 */
export async function preparePhoto(vision: VisionApi, input: ImageInput, field: string): Promise<PreparedPhoto> {
  const resolved = resolveImage(input, field);
  const bytes = resolved.kind === 'bytes' ? resolved.bytes : (await downloadImage(resolved.url, field, { maxBytes: MAX_IMAGE_BYTES, timeoutMs: DOWNLOAD_TIMEOUT_MS })).bytes;
  let faces: DetectedFace[];
  try {
    faces = await vision.detectFaces(bytes);
  } catch (err) {
    if (err instanceof ClientError && err.status === 400) return { ok: false, reason: `the service refused the photo: ${err.message}`, code: err.code };
    throw err;
  }
  if (faces.length === 0) return { ok: false, reason: 'no face was found in the photo', code: 'no_face' };
  const face = largest(faces);
  const warnings: string[] = [];
  if (faces.length > 1) warnings.push(`${faces.length} faces in the photo: the largest was taken`);
  const w = Math.round(boxWidth(face.location));
  const h = Math.round(boxHeight(face.location));
  const rule = `the service takes faces of ${API_FACE_MIN} to ${API_FACE_MAX} px on each side`;
  if (Math.min(w, h) < API_FACE_MIN) return { ok: false, reason: `the face is ${w}x${h} px: ${rule}, and a smaller face is not enlarged (take a closer photo)`, code: 'face_too_small' };
  const picture = await pictureOf(bytes);
  const quality = faceQuality(picture, face.location, face.direction ?? null);
  let image = bytes;
  // The service enrols a face of its choosing from a photo with several: the one taken is cut out.
  if (Math.max(w, h) > API_FACE_MAX || faces.length > 1) {
    const plan = cropPlan(face, faces, picture);
    if (!plan) return { ok: false, reason: `the face is ${w}x${h} px and cannot be cut out into the rule (${rule})`, code: 'face_size_out_of_range' };
    image = await cropToJpeg(picture, plan.region, { width: plan.width, height: plan.height }, { quality: 92 });
  }
  const poor = poorness(quality);
  if (poor) warnings.push(`a poor photo (${poor}): the person may be recognised less well`);
  return { ok: true, image, quality, ...(warnings.length > 0 ? { warning: warnings.join('; ') } : {}) };
}

/** Margins tried around the face, widest first: the crop must not hold the centre of another face. */
const MARGINS = [0.6, 0.3, 0.12];

/** The crop that brings the face into the rule (the watcher's crop code), with no other face in it. */
function cropPlan(face: DetectedFace, faces: readonly DetectedFace[], picture: Picture): Extract<ReturnType<typeof planCrop>, { ok: true }> | undefined {
  const others = faces.filter((f) => f !== face).map((f) => f.location);
  for (const margin of MARGINS) {
    const plan = planCrop(face.location, picture, { margin, minFaceSize: API_FACE_MIN, targetSide: 200 });
    if (!plan.ok) return undefined;
    const r = plan.region;
    const holdsOther = others.some((o) => {
      const [x, y] = [(o.left + o.right) / 2, (o.top + o.bottom) / 2];
      return x >= r.left && x <= r.right && y >= r.top && y <= r.bottom;
    });
    if (!holdsOther) return plan;
  }
  return undefined;
}

function largest(faces: readonly DetectedFace[]): DetectedFace {
  return faces.reduce((a, b) => (boxWidth(b.location) * boxHeight(b.location) > boxWidth(a.location) * boxHeight(a.location) ? b : a));
}

function poorness(q: PhotoQuality): string | undefined {
  const why: string[] = [];
  if (q.sharpness < POOR_SHARPNESS) why.push('blurred');
  if (q.brightness < POOR_BRIGHTNESS) why.push('dark');
  if (q.direction && q.direction !== 'front') why.push(`looking ${q.direction}`);
  return why.length > 0 ? why.join(', ') : undefined;
}

/** The photo's pixels, RGB. */
async function pictureOf(bytes: Buffer): Promise<Picture> {
  const { data, info } = await sharpLib()(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, format: 'rgb', data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), timestamp: 0 };
}
