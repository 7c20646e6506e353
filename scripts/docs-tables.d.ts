/** The types of scripts/docs-tables.js, for the tests that use it. */

/** A generated block of a page: its table's name and the text between its markers. */
export interface GeneratedBlock {
  name: string;
  body: string;
}

/** The repository's root. */
export const ROOT: string;
/** The pages that may hold generated tables: README.md and every page of docs/, relative to the root. */
export function docFiles(root?: string): string[];
/** Every generated table, by name, made from the code. */
export function tables(): Map<string, string>;
/** The generated blocks of a page. */
export function blocks(text: string): GeneratedBlock[];
/** The page with every generated block replaced by its table; throws on a name the script does not make. */
export function rewrite(text: string, made: Map<string, string>, file?: string): string;
/** One message per generated block that differs from its table, naming the table and the first line that differs. */
export function differences(text: string, made: Map<string, string>, file?: string): string[];
/** A Markdown table of a header row and rows of cells. */
export function markdownTable(header: string[], rows: string[][]): string;
