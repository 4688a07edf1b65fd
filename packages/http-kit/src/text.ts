/**
 * Characters no id or name a service stores may hold: controls (Unicode `Cc`: C0 with NUL, DEL, C1), format
 * characters (`Cf`: the bidirectional marks, embeddings, overrides and isolates, zero-width spaces and joiners, the
 * byte order mark, soft hyphen, tag characters), lone surrogates (`Cs`) and the line and paragraph separators
 * (`Zl`, `Zp`). They hide, reorder or break what operators read, so two stored ids can look alike (the
 * "Trojan Source" characters, CVE-2021-42574; Unicode TR #36 on identifier spoofing).
 */
const UNSAFE_TEXT = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

/** Whether `s` holds a character no stored id or name may hold (see above). */
export function hasUnsafeChars(s: string): boolean {
  return UNSAFE_TEXT.test(s);
}
