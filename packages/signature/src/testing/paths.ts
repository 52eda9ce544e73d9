/**
 * An independent implementation of the path notation (README, "Paths"), so that tests check the
 * library's paths against a second reading of the rule rather than against themselves.
 */
export const expectedPath = {
  index: (base: string, index: number): string => `${base}[${index}]`,
  key: (base: string, key: string): string => (/^[A-Za-z_$][\w$]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`),
  mapKey: (base: string, key: string | number): string => `${base}.get(${typeof key === 'string' ? JSON.stringify(key) : key})`,
};
