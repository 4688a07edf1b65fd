/**
 * `must(xs[0])`: the value of an index access or look-up that a test knows is there, typed without `| undefined`
 * (the compiler's noUncheckedIndexedAccess), instead of a cast that would hide a missing value.
 * @throws Error naming `what` when the value is undefined or null, so the test fails where the value went missing.
 */
export function must<T>(value: T | null | undefined, what = 'value'): T {
  if (value === undefined || value === null) throw new Error(`expected a ${what}, got ${value}`);
  return value;
}
