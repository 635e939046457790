/**
 * The `default` of a switch that must handle every case of a union: a new case that is not handled
 * makes the call fail to compile (the value is not `never`), and a value from outside the types
 * fails loudly at run time.
 */
export function unreachable(value: never, what: string): never {
  throw new TypeError(`unhandled ${what}: ${JSON.stringify(value)}`);
}
