// /openapi.json refers to its components with `$ref`; tests that read what an operation answers
// or takes see them in place.

/** `document` with each `$ref` to one of `kinds` of its components replaced by the component. */
export function inlined<T>(document: T, kinds: string[] = ['responses', 'parameters', 'headers']): T {
  const components = (document as { components: Record<string, Record<string, unknown>> }).components;
  const resolve = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(resolve);
    if (typeof node !== 'object' || node === null) return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string') {
      const [, , kind, name] = ref.split('/');
      if (kinds.includes(kind!)) return resolve(components[kind!]![name!]);
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolve(v)]));
  };
  return { ...document, paths: resolve((document as { paths: unknown }).paths) } as T;
}
