import { ApiError } from '../../shared/errors';
import { parseCollectionCompare } from '../../shared/vision/parse';

const location = { left: 1, top: 2, right: 3, bottom: 4 };
const body = (faces: unknown[]) => ({ source: { location }, target: { collection_id: 'c1', faces } });

describe('collection comparison results', () => {
  it('parses decimal-string scores and sorts most similar first, ties in service order', () => {
    const result = parseCollectionCompare(
      body([
        { face_id: 'low', score: '0.1200' },
        { face_id: 'tie-first', score: '0.9321' },
        { face_id: 'number', score: 0.5 },
        { face_id: 'tie-second', score: '0.9321' },
        { face_id: 'spaced', score: ' 0.7 ' },
        { face_id: 'zero', score: '0' },
      ]),
      'compareWithCollection',
    );
    expect(result).toEqual({
      source: { location },
      target: {
        collectionId: 'c1',
        faces: [
          { faceId: 'tie-first', score: 0.9321 },
          { faceId: 'tie-second', score: 0.9321 },
          { faceId: 'spaced', score: 0.7 },
          { faceId: 'number', score: 0.5 },
          { faceId: 'low', score: 0.12 },
          { faceId: 'zero', score: 0 },
        ],
      },
    });
  });

  it('refuses a score that is not a number, naming the face', () => {
    for (const score of ['abc', '', '   ', null, undefined, '1e400', 'NaN', true, {}]) {
      let caught: unknown;
      try {
        parseCollectionCompare(body([{ face_id: 'ok', score: '0.5' }, { face_id: 'bad', score }]), 'compareWithCollection');
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(ApiError);
      expect(caught).toMatchObject({ code: 'invalid_response', status: 200, retryable: false, serviceMessage: 'target.faces[1].score is not a number' });
    }
  });
});
