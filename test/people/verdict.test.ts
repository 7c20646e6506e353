import { DEFAULT_CLOSEST_BAR, PeopleIndex, personVerdict, type PeopleDocument } from '../../shared/people';

// The verdict on a compare's scores, grouped by person: every case, no room needed.

const at = '2026-01-01T00:00:00.000Z';
const face = (face_id: string) => ({ face_id, added_at: at, from: 'photo' as const });
const doc: PeopleDocument = {
  kind: 'vision-streaming-people',
  version: 1,
  collectionId: 'c',
  people: [
    { person_id: 'p_anna', name: 'Anna', faces: [face('a1'), face('a2')], not_faces: [face('x1')] },
    { person_id: 'p_ben', name: 'Ben', faces: [face('b1')], not_faces: [] },
  ],
};
const index = PeopleIndex.of(doc);
const o = { threshold: 0.7 };

test('a person: their best face names them, with the face that matched', () => {
  expect(personVerdict([{ face_id: 'a1', score: 0.8 }, { face_id: 'a2', score: 0.9 }], index, o)).toEqual({ kind: 'person', person_id: 'p_anna', name: 'Anna', face_id: 'a2', score: 0.9 });
});

test('two faces of one person scoring under two others: the person whose best face is highest wins', () => {
  const v = personVerdict([{ face_id: 'b1', score: 0.85 }, { face_id: 'a1', score: 0.8 }, { face_id: 'a2', score: 0.82 }], index, o);
  expect(v).toMatchObject({ kind: 'person', person_id: 'p_ben', face_id: 'b1' });
});

test('a face in no person is a face, as before people', () => {
  expect(personVerdict([{ face_id: 'loose', score: 0.75 }], index, o)).toEqual({ kind: 'face', face_id: 'loose', score: 0.75 });
  expect(personVerdict([{ face_id: 'loose', score: 0.75 }], PeopleIndex.EMPTY, o)).toEqual({ kind: 'face', face_id: 'loose', score: 0.75 });
});

test('below the threshold: unknown with the best score; nothing at all: score 0', () => {
  expect(personVerdict([{ face_id: 'loose', score: 0.4 }], index, o)).toEqual({ kind: 'unknown', score: 0.4 });
  expect(personVerdict([], index, o)).toEqual({ kind: 'unknown', score: 0 });
});

test('a not-face scoring at least the person: unknown, reason not_person, closest naming them', () => {
  expect(personVerdict([{ face_id: 'x1', score: 0.9 }, { face_id: 'a1', score: 0.8 }], index, o)).toEqual({
    kind: 'unknown',
    score: 0.9,
    reason: 'not_person',
    closest: { person_id: 'p_anna', name: 'Anna', score: 0.8 },
  });
  // A tie is not them either: the person must score higher than their best not-face.
  expect(personVerdict([{ face_id: 'x1', score: 0.8 }, { face_id: 'a1', score: 0.8 }], index, o)).toMatchObject({ kind: 'unknown', reason: 'not_person' });
});

test('a not-face scoring below the person does not stand in the way', () => {
  expect(personVerdict([{ face_id: 'a1', score: 0.8 }, { face_id: 'x1', score: 0.6 }], index, o)).toMatchObject({ kind: 'person', person_id: 'p_anna' });
});

test('a passed-over person leaves the next one at the threshold to win', () => {
  const v = personVerdict([{ face_id: 'x1', score: 0.95 }, { face_id: 'a1', score: 0.9 }, { face_id: 'b1', score: 0.75 }], index, o);
  expect(v).toMatchObject({ kind: 'person', person_id: 'p_ben' });
});

test('a not-face is never a face of its own', () => {
  expect(personVerdict([{ face_id: 'x1', score: 0.95 }], index, o)).toEqual({ kind: 'unknown', score: 0.95 });
});

test('an unknown names the closest person at or above the bar (default 0.5), not under it', () => {
  expect(DEFAULT_CLOSEST_BAR).toBe(0.5);
  expect(personVerdict([{ face_id: 'a1', score: 0.6 }, { face_id: 'loose', score: 0.65 }], index, o)).toEqual({ kind: 'unknown', score: 0.65, closest: { person_id: 'p_anna', name: 'Anna', score: 0.6 } });
  expect(personVerdict([{ face_id: 'a1', score: 0.5 }], index, o)).toMatchObject({ closest: { person_id: 'p_anna' } });
  expect(personVerdict([{ face_id: 'a1', score: 0.49 }], index, o)).toEqual({ kind: 'unknown', score: 0.49 });
  expect(personVerdict([{ face_id: 'a1', score: 0.3 }], index, { threshold: 0.7, closestBar: 0.25 })).toMatchObject({ closest: { name: 'Anna', score: 0.3 } });
});

test('the threshold is inclusive', () => {
  expect(personVerdict([{ face_id: 'b1', score: 0.7 }], index, o)).toMatchObject({ kind: 'person', name: 'Ben' });
});
