import { checkUuid, collectionEntries, isUuid, roomEntries } from '../../shared/pick';
import { InputError } from '../../shared/errors';

const rooms = [
  { id: 'aaaaaaaa-0000-4000-8000-000000000001', up_count: 0, down_count: 0, created_at: '2026-01-01T00:00:00Z' },
  { id: 'bbbbbbbb-0000-4000-8000-000000000002', up_count: 1, down_count: 3, created_at: '2025-01-01T00:00:00Z' },
  { id: 'cccccccc-0000-4000-8000-000000000003', up_count: 0, down_count: 0, created_at: '2026-06-01T00:00:00Z' },
];

describe('picker entries', () => {
  it('lists rooms on air first, then the newest, with their counts', () => {
    const entries = roomEntries(rooms);
    expect(entries.map((e) => e.value)).toEqual([rooms[1].id, rooms[2].id, rooms[0].id]);
    expect(entries[0].name).toBe(`${rooms[1].id} (on air, 1 up / 3 down)`);
    expect(entries[1].name).toContain('idle, 0 up / 0 down');
  });

  it('filters by a part of the id, ignoring case', () => {
    expect(roomEntries(rooms, ' CCCC ').map((e) => e.value)).toEqual([rooms[2].id]);
    expect(collectionEntries([{ collectionId: 'abc' }, { collectionId: 'xyz' }], 'Y').map((e) => e.value)).toEqual(['xyz']);
  });

  it('holds pasted ids to the UUID shape and names the field', () => {
    expect(isUuid(rooms[0].id)).toBe(true);
    expect(checkUuid(` ${rooms[0].id} `, 'roomId')).toBe(rooms[0].id);
    expect(() => checkUuid('not-a-room', 'roomId')).toThrow(InputError);
    expect(() => checkUuid('not-a-room', 'roomId')).toThrow(/roomId must be a UUID .*got "not-a-room"/);
    expect(() => checkUuid('', 'collectionId')).toThrow(/collectionId is required/);
  });
});
