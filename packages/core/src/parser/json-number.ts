/** The JSON number grammar as a tiny state machine (RFC 8259 §6), one character at a time. */

export const N_MINUS = 0;
export const N_ZERO = 1;
export const N_INT = 2;
const N_DOT = 3;
const N_FRAC = 4;
const N_E = 5;
const N_ESIGN = 6;
const N_EXP = 7;
const MAY_END: ReadonlyArray<boolean> = [false, true, true, false, true, false, false, true];

export const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** Whether a number in this state is complete if the next character is a delimiter. */
export const numberMayEnd = (state: number): boolean => MAY_END[state] === true;

/** The state after character `c`, or -1 when `c` cannot continue the number. */
export function nextNumberState(state: number, c: number): number {
  if (isDigit(c)) {
    if (state === N_MINUS) return c === 48 ? N_ZERO : N_INT;
    if (state === N_DOT) return N_FRAC;
    if (state === N_E || state === N_ESIGN) return N_EXP;
    return state === N_ZERO ? -1 : state;
  }
  if (c === 46) return state === N_ZERO || state === N_INT ? N_DOT : -1; // .
  if (c === 101 || c === 69) return state === N_ZERO || state === N_INT || state === N_FRAC ? N_E : -1; // e E
  if (c === 43 || c === 45) return state === N_E ? N_ESIGN : -1; // + -
  return -1;
}
