import { nameKey } from './document';
import type { PeopleDocument } from './types';

/** A person as the index names them. */
export interface IndexedPerson {
  readonly person_id: string;
  readonly name: string;
}

/**
 * A read-only snapshot of a people document for lookups on the hot path: which person a face of
 * the collection is (or is not). A watcher holds one and swaps it for a new one when the store changes.
 */
export class PeopleIndex {
  /** The index of nobody. */
  static readonly EMPTY = new PeopleIndex([]);

  readonly #faces = new Map<string, IndexedPerson>();
  readonly #notFaces = new Map<string, IndexedPerson>();
  readonly #byId = new Map<string, IndexedPerson>();
  readonly #byName = new Map<string, IndexedPerson>();

  private constructor(people: PeopleDocument['people']) {
    for (const p of people) {
      const who: IndexedPerson = Object.freeze({ person_id: p.person_id, name: p.name });
      this.#byId.set(p.person_id, who);
      this.#byName.set(nameKey(p.name), who);
      for (const f of p.faces) this.#faces.set(f.face_id, who);
      for (const f of p.not_faces) this.#notFaces.set(f.face_id, who);
    }
  }

  /** The index of a (checked) document. */
  static of(doc: Pick<PeopleDocument, 'people'>): PeopleIndex {
    return doc.people.length === 0 ? PeopleIndex.EMPTY : new PeopleIndex(doc.people);
  }

  /** The person a face of the collection is, if any. */
  personOf(faceId: string): IndexedPerson | undefined {
    return this.#faces.get(faceId);
  }

  /** The person a face is marked as not being, if any. */
  notFaceOf(faceId: string): IndexedPerson | undefined {
    return this.#notFaces.get(faceId);
  }

  /** A person by id. */
  person(personId: string): IndexedPerson | undefined {
    return this.#byId.get(personId);
  }

  /** A person by name (case-insensitively). */
  byName(name: string): IndexedPerson | undefined {
    return this.#byName.get(nameKey(name.trim()));
  }

  /** Number of people. */
  get size(): number {
    return this.#byId.size;
  }

  /** Faces the people hold: their own and their not-faces. */
  get faceCount(): number {
    return this.#faces.size + this.#notFaces.size;
  }
}
