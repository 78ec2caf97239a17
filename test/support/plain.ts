/** Plain values for comparing folds and other state: maps as entry lists sorted by key, sets sorted. */
export function plain(value: unknown): unknown {
  if (value instanceof Map) return [...value].map(([k, v]) => [k, plain(v)]).sort(([a], [b]) => String(a).localeCompare(String(b)));
  if (value instanceof Set) return [...value].sort();
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}
