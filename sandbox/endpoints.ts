/**
 * Names the endpoint a /v1 request targets; the same names key the fault rules and the stats.
 * Unknown paths are named 'other'.
 */
export function endpointName(pathname: string): string {
  const parts = pathname.split('/').filter(Boolean);
  if (parts[0] !== 'v1') return 'other';
  const [, first, , third] = parts;
  switch (first) {
    case 'token':
    case 'detect_faces':
    case 'detect_humans':
      return parts.length === 2 ? first : 'other';
    case 'compare_faces':
      return parts.length === 2 ? 'compare_faces' : 'compare_collection';
    case 'face_collections':
      return third === 'faces' ? 'faces' : 'collections';
    case 'rooms':
      return third === 'tickets' ? 'tickets' : 'rooms';
    default:
      return 'other';
  }
}
