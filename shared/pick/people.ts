import type { PickEntry } from './index';
import type { Person } from '../people/types';

/** A person as a picker entry: the name is what is stored (people are named by name in flows), the id and face count the detail. */
export function personEntry(person: Pick<Person, 'person_id' | 'name' | 'faces' | 'not_faces'>): PickEntry {
  const faces = person.faces.length;
  const not = person.not_faces.length;
  return {
    name: person.name,
    value: person.name,
    description: `${faces} face${faces === 1 ? '' : 's'}${not > 0 ? `, ${not} marked not them` : ''}; ${person.person_id}`,
  };
}

/** People as picker entries, by name, filtered by a search text on the name or the person id. */
export function peopleEntries(people: readonly Pick<Person, 'person_id' | 'name' | 'faces' | 'not_faces'>[], filter?: string): PickEntry[] {
  const needle = (filter ?? '').trim().toLowerCase();
  return people
    .filter((p) => needle === '' || p.name.toLowerCase().includes(needle) || p.person_id.toLowerCase().includes(needle))
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(personEntry);
}
