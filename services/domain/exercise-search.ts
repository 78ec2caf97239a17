// Finding an exercise by name (list_exercises, get_personal_records). Names and queries are
// compared as words: case and accents folded (NFKD with the combining marks dropped, then lower
// case), split at anything that is not a letter or a digit. A name matches when every word of the
// query begins one of its words, in any order: "bench barbell" and "BENCH" find "Bench Press
// (Barbell)", "curl" finds "Bicep Curl (Dumbbell)". Word beginnings rather than any substring, so
// that "row" finds rows and not "Arrow", and a misspelt word ("bnech") finds nothing rather than a
// guess: a model that gets no item can list without a query and choose.

/** The words of a name or query, folded. */
export function nameWords(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/** The key exercises are listed by: the folded words, so that order ignores case and accents. */
export function sortName(name: string): string {
  return nameWords(name).join(' ');
}

/** Whether every query word begins some word of the name's (a query without words matches all). */
export function matchesWords(nameWordList: readonly string[], queryWords: readonly string[]): boolean {
  return queryWords.every((q) => nameWordList.some((w) => w.startsWith(q)));
}
